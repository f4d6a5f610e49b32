/* The turns' lines at either end, and both ends'. */
#include <math.h>
#include <stdlib.h>

#include "../lib/turnsout.h"
#include "../lib/units.h"
#include "check.h"
#include "turnsfill.h"

static char *printed(const struct turns *t)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	turns_print(t, f, UNITS_DEFAULT);
	fclose(f);
	return buf;
}

/* Arm 1 takes 2 points more of a 2-CPU host: found, with the kernel's view carrying half. */
static void a_known_difference_is_found_in_points(void)
{
	struct turns t;
	char *out;

	receiver_of_two(&t, 0.02);
	out = printed(&t);
	CHECK(strstr(out, "receiver: arm write: 20 slots, 629145600 bytes in 1.500 s") == out);
	CHECK(strstr(out, "receiver: sendfile: costs +9.") != NULL);
	CHECK(strstr(out, "; load +2.00 points [+2.00, +2.00]; 20 blocks of 1 cycle\n") != NULL);
	turns_free(&t);
}

/* The sum's lines: the demand alone, each arm against the cheapest. */
static void both_ends_lines_give_the_demand_alone(void)
{
	struct turns s, r, both;
	char *out;

	both_ends(&s, &r, &both);
	out = printed(&both);
	CHECK(strstr(out, "both ends: arm write: 10 slots, 10485760 bytes in 0.750 s, 13653 kbytes/sec, demand ") == out);
	/* Sendfile's receiver takes 0.005 of 4 CPUs more a half MiB: 0.04 on 0.6 a MiB, +6.7%. */
	CHECK(strstr(out, "both ends: sendfile: costs +6.") != NULL);
	CHECK(strstr(out, "against write; 9 blocks of 1 cycle\n") != NULL);
	CHECK(strstr(out, "load") == NULL);
	turns_free(&s);
	turns_free(&r);
	turns_free(&both);
}

/* Two arms alike to the last bit: the same within +-0.0%, never "+--0.0%". */
static void identical_arms_are_the_same_within_0(void)
{
	struct turns t;
	char *out;

	receiver_of_two(&t, 0);
	out = printed(&t);
	CHECK_STR(strstr(out, "receiver: sendfile:"),
		  "receiver: sendfile: the same as write within +-0.0% (+0.0% [+0.0, +0.0]), the "
		  "kernel's view +0.0% [+0.0, +0.0]; load +0.00 points [+0.00, +0.00]; 20 blocks of 1 "
		  "cycle\n");
	turns_free(&t);
}

/*
 * With a meter of two CPUs or more, each arm's load on each CPU, and after
 * each comparison its CPUs, those that differ first: 2 points of CPU 7.
 */
static void each_cpu_has_its_line(void)
{
	struct turns t;
	int cpus[2] = { 4, 7 };
	char *out, *line;

	turns_init(&t, TURNS_RECEIVER, two, 2, 100);
	fill_cpus(&t, 20, cpus, 0.02, 30 << 20);
	out = printed(&t);
	line = strstr(out, "receiver: arm write on each CPU:");
	CHECK(line && strncmp(line, "receiver: arm write on each CPU: CPU 4 30.4%, CPU 7 10.4%\n", 58) == 0);
	line = strstr(out, "receiver: arm sendfile on each CPU:");
	CHECK(line && strncmp(line, "receiver: arm sendfile on each CPU: CPU 4 30.4%, CPU 7 12.4%\n", 61) == 0);
	line = strstr(out, "receiver: sendfile: +2.00 points on CPU 7");
	CHECK_STR(line, "receiver: sendfile: +2.00 points on CPU 7 [+2.00, +2.00]; CPU 4 the same within "
			"+-0.00\n");
	turns_free(&t);
	/* One CPU: its figures are the whole's, and said once. */
	turns_init(&t, TURNS_RECEIVER, two, 2, 100);
	t.n_cpus = 1;
	turns_set_cpus(&t, cpus, 1);
	fill(&t, 20, 0.20, 0.02, 30 << 20);
	CHECK(strstr(printed(&t), "on each CPU") == NULL);
	CHECK(strstr(printed(&t), "points on CPU") == NULL);
	turns_free(&t);
}

/*
 * A CPU whose soaker had no time in any slot (at its ceiling: its load
 * SOAK_CEILING every time) says nothing of a difference: not resolved,
 * with why, and its slots counted in -J. It read "the same within +-0.00".
 */
static void a_cpu_at_its_ceiling_is_not_resolved(void)
{
	struct turns t;
	struct json j;
	int cpus[2] = { 0, 1 };
	char *line, buf[8192];
	FILE *f;

	turns_init(&t, TURNS_SENDER, two, 2, 100);
	t.n_cpus = 2;
	turns_set_cpus(&t, cpus, 2);
	for (uint32_t c = 0; c < 20; c++)
		for (unsigned a = 0; a < 2; a++) {
			double loads[2] = { SOAK_CEILING, 0.10 + 0.002 * ((c * 7) % 5) + (a ? 0.04 : 0) };
			struct turns_slot sl = { .arm = a, .cycle = c, .at = 2 * c + a, .bytes = 30 << 20,
						 .cpu_load = loads };

			sl.fig.ns = 75000000;
			sl.fig.load = (loads[0] + loads[1]) / 2;
			sl.fig.time_lost = sl.fig.load / 2;
			sl.fig.kernel = sl.fig.load / 2;
			turns_add(&t, &sl);
		}
	line = strstr(printed(&t), "sendfile: +4.00 points on CPU 1");
	CHECK_STR(line, "sendfile: +4.00 points on CPU 1 [+4.00, +4.00]; CPU 0 not resolved (at its "
			"ceiling: its soaker had no time in 40 of the slots)\n");
	CHECK(strstr(printed(&t), "arm write on each CPU: CPU 0 100.0%, CPU 1 ") != NULL);
	f = fmemopen(buf, sizeof(buf), "w");
	json_begin(&j, f);
	turns_json(&t, &j);
	json_end(&j);
	fclose(f);
	CHECK(strstr(buf, "{\"cpu\":0,\"verdict\":\"unresolved\",\"load_points\":{\"estimate\":null,"
			  "\"lo\":null,\"hi\":null,\"n\":0},\"ceiling_slots\":40}") != NULL);
	CHECK(strstr(buf, "{\"cpu\":1,\"verdict\":\"differs\",") != NULL);
	turns_free(&t);
}

int main(void)
{
	RUN(a_known_difference_is_found_in_points);
	RUN(both_ends_lines_give_the_demand_alone);
	RUN(identical_arms_are_the_same_within_0);
	RUN(each_cpu_has_its_line);
	RUN(a_cpu_at_its_ceiling_is_not_resolved);
	return CHECK_EXIT();
}
