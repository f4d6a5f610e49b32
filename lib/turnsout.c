#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "paired.h"
#include "timing.h"
#include "turnsout.h"
#include "units.h"

/* What a line about the receiving end, or both, begins with. */
static const char *prefix(const struct turns *t)
{
	return t->end == TURNS_RECEIVER ? "receiver: " : t->end == TURNS_BOTH ? "both ends: " : "";
}

static void print_arm(const struct turns *t, unsigned i, FILE *out, char unit)
{
	struct turns_arm_sum s;
	char rate[48];

	turns_sum_arm(t, i, &s);
	fprintf(out, "%sarm %s: %zu slots, %llu bytes in %.3f s, %s", prefix(t), t->arm[i], s.slots,
		(unsigned long long)s.bytes, timing_secs(s.ns),
		units_rate(rate, sizeof(rate), s.bytes, s.ns, unit));
	if (turns_metered(t) && t->end == TURNS_BOTH) {
		fprintf(out, ", demand %.3f us/KB", turns_arm_demand(t, &s));
	} else if (turns_metered(t)) {
		fprintf(out, ", load %.1f%%, demand %.3f us/KB", 100 * turns_arm_load(&s), turns_arm_demand(t, &s));
		if (!isnan(turns_arm_kernel(&s)))
			fprintf(out, ", kernel %.1f%%", 100 * turns_arm_kernel(&s));
	}
	fprintf(out, "\n");
}

static void print_comparison(const struct turns *t, const struct turns_comparison *c, FILE *out)
{
	const struct paired *d = &c->demand_pct, *l = &c->load_points, *k = &c->kernel_demand_pct;
	const char *xn = t->arm[c->x], *rn = t->arm[c->r];

	fprintf(out, "%s", prefix(t));
	if (c->verdict == PAIRED_DIFFERS)
		fprintf(out, "%s: costs %+.1f%% [%+.1f, %+.1f] against %s", xn, d->estimate, d->lo, d->hi,
			rn);
	else if (c->verdict == PAIRED_SAME)
		fprintf(out, "%s: the same as %s within +-%.1f%% (%+.1f%% [%+.1f, %+.1f])", xn, rn,
			paired_within(d), d->estimate, d->lo, d->hi);
	else if (d->n)
		fprintf(out, "%s: not resolved against %s (%+.1f%% [%+.1f, %+.1f])", xn, rn, d->estimate,
			d->lo, d->hi);
	else
		fprintf(out, "%s: not resolved against %s (its demand is 0 or below: no share of it)",
			xn, rn);
	if (t->end == TURNS_BOTH) {
		fprintf(out, "; %zu blocks of %u cycle%s\n", d->n, turns_block_cycles(t),
			turns_block_cycles(t) > 1 ? "s" : "");
		return;
	}
	if (k->n)
		fprintf(out, ", the kernel's view %+.1f%% [%+.1f, %+.1f]", k->estimate, k->lo, k->hi);
	if (c->carried_by == TURNS_CARRIED_BY_KERNEL)
		fprintf(out, ": the kernel's view carries it");
	else if (c->carried_by == TURNS_CARRIED_BY_SLOWDOWN && turns_views_disagree(d, k))
		fprintf(out, ": the slowdown carries it, not CPU time the kernel counted, which went "
			"the other way (the soakers ran slower beside it: caches, memory, the hypervisor)");
	else if (c->carried_by == TURNS_CARRIED_BY_SLOWDOWN)
		fprintf(out, ": the slowdown carries it");
	fprintf(out, "; load %+.2f points [%+.2f, %+.2f]", l->estimate, l->lo, l->hi);
	/*
	 * At full speed an arm that moves fewer bytes loads the host less, and
	 * may still cost more a KiB.
	 */
	if (l->n && d->n && ((l->hi < 0 && d->lo > 0) || (l->lo > 0 && d->hi < 0)))
		fprintf(out, " (%s bytes a second: %s load, %s CPU a KiB)", l->hi < 0 ? "fewer" : "more",
			l->hi < 0 ? "less" : "more", l->hi < 0 ? "more" : "less");
	fprintf(out, "; %zu blocks of %u cycle%s\n", l->n, turns_block_cycles(t),
		turns_block_cycles(t) > 1 ? "s" : "");
}

/* Each CPU's figures are said where the meter had more than one. */
static int by_cpu(const struct turns *t)
{
	return t->n_cpu > 1 && t->end != TURNS_BOTH;
}

/* "arm write on each CPU: CPU 0 12.3%, CPU 1 45.6%" */
static void print_arm_cpus(const struct turns *t, unsigned i, FILE *out)
{
	fprintf(out, "%sarm %s on each CPU:", prefix(t), t->arm[i]);
	for (int k = 0; k < t->n_cpu; k++) {
		double v = turns_arm_cpu_load(t, i, k);

		fprintf(out, "%s CPU %d ", k ? "," : "", t->cpu[k]);
		if (isnan(v))
			fprintf(out, "-");
		else
			fprintf(out, "%.1f%%", 100 * v);
	}
	fprintf(out, "\n");
}

/*
 * A comparison on each CPU, those that differ first, in points of that CPU:
 * "write: +1.40 points on CPU 1 [+1.10, +1.70]; CPU 0 the same within
 * +-0.40; CPU 2 not resolved (+0.50 [-0.20, +1.30])".
 */
static void print_comparison_cpus(const struct turns *t, const struct turns_comparison *c,
				  FILE *out)
{
	static const enum paired_verdict order[] = { PAIRED_DIFFERS, PAIRED_SAME, PAIRED_UNRESOLVED };
	int said = 0;

	fprintf(out, "%s%s", prefix(t), t->arm[c->x]);
	for (int o = 0; o < 3; o++)
		for (int k = 0; k < t->n_cpu; k++) {
			const struct paired *p = &c->cpu_points[k];

			if (c->cpu_verdict[k] != order[o])
				continue;
			fprintf(out, "%s", said++ ? "; " : ": ");
			if (order[o] == PAIRED_DIFFERS)
				fprintf(out, "%+.2f points on CPU %d [%+.2f, %+.2f]", p->estimate, t->cpu[k],
					p->lo, p->hi);
			else if (order[o] == PAIRED_SAME)
				fprintf(out, "CPU %d the same within +-%.2f", t->cpu[k],
					fmax(-p->lo, p->hi) + 0.0);
			else if (p->n)
				fprintf(out, "CPU %d not resolved (%+.2f [%+.2f, %+.2f])", t->cpu[k],
					p->estimate, p->lo, p->hi);
			else if (c->cpu_ceiling[k])
				fprintf(out, "CPU %d not resolved (at its ceiling: its soaker had no time in %zu "
					"of the slots)", t->cpu[k], c->cpu_ceiling[k]);
			else
				fprintf(out, "CPU %d not resolved (no block had both arms)", t->cpu[k]);
		}
	fprintf(out, "\n");
}

void turns_print(const struct turns *t, FILE *out, char unit)
{
	unsigned r;
	struct turns_comparison c;

	for (unsigned i = 0; i < t->n_arms; i++)
		print_arm(t, i, out, unit);
	if (!turns_metered(t))
		return;
	for (unsigned i = 0; i < t->n_arms && by_cpu(t); i++)
		print_arm_cpus(t, i, out);
	r = turns_cheapest(t);
	for (unsigned i = 0; i < t->n_arms; i++) {
		if (i == r)
			continue;
		turns_compare(t, i, r, &c);
		print_comparison(t, &c, out);
		if (by_cpu(t))
			print_comparison_cpus(t, &c, out);
		turns_compare_free(&c);
	}
}

static void json_paired(struct json *j, const char *key, const struct paired *p, int decimals)
{
	json_object(j, key);
	if (p->n) {
		json_double(j, "estimate", p->estimate, decimals);
		json_double(j, "lo", p->lo, decimals);
		json_double(j, "hi", p->hi, decimals);
	} else {
		json_null(j, "estimate");
		json_null(j, "lo");
		json_null(j, "hi");
	}
	json_uint(j, "n", p->n);
	json_close(j);
}

static void json_arms(const struct turns *t, struct json *j)
{
	struct turns_arm_sum s;

	json_array(j, "arms");
	for (unsigned i = 0; i < t->n_arms; i++) {
		turns_sum_arm(t, i, &s);
		json_object(j, NULL);
		json_string(j, "arm", t->arm[i]);
		json_string(j, "mode", t->mode[i]);
		json_uint(j, "slots", s.slots);
		json_uint(j, "bytes", s.bytes);
		json_double(j, "seconds", timing_secs(s.ns), 6);
		json_uint(j, "kbytes_per_sec", timing_kbytes_per_sec(s.bytes, s.ns));
		/* Both ends' loads are of two hosts: their sum is the demand's alone. */
		if (turns_metered(t) && t->end != TURNS_BOTH) {
			json_double(j, "load_pct", 100 * turns_arm_load(&s), 2);
			json_double(j, "demand_us_per_kb", turns_arm_demand(t, &s), 4);
			json_pct(j, "kernel_pct", turns_arm_kernel(&s), 2);
		} else if (turns_metered(t)) {
			json_double(j, "demand_us_per_kb", turns_arm_demand(t, &s), 4);
		}
		if (turns_metered(t) && t->n_cpu && t->end != TURNS_BOTH) {
			json_array(j, "cpus");
			for (int k = 0; k < t->n_cpu; k++) {
				json_object(j, NULL);
				json_int(j, "cpu", t->cpu[k]);
				json_pct(j, "load_pct", turns_arm_cpu_load(t, i, k), 2);
				json_close(j);
			}
			json_close(j);
		}
		json_close(j);
	}
	json_close(j);
}

static const char *carrier_name(enum turns_carrier c)
{
	return c == TURNS_CARRIED_BY_KERNEL ? "kernel" : c == TURNS_CARRIED_BY_SLOWDOWN ? "slowdown" : NULL;
}

static void json_comparisons(const struct turns *t, struct json *j)
{
	unsigned r = turns_cheapest(t);
	struct turns_comparison c;

	json_string(j, "cheapest", t->arm[r]);
	json_array(j, "comparisons");
	for (unsigned i = 0; i < t->n_arms; i++) {
		if (i == r)
			continue;
		turns_compare(t, i, r, &c);
		json_object(j, NULL);
		json_string(j, "arm", t->arm[i]);
		json_string(j, "against", t->arm[r]);
		json_string(j, "verdict", paired_verdict_name(c.verdict));
		json_string(j, "carried_by", carrier_name(c.carried_by));
		json_paired(j, "demand_pct", &c.demand_pct, 2);
		json_paired(j, "kernel_demand_pct", &c.kernel_demand_pct, 2);
		json_paired(j, "load_points", &c.load_points, 3);
		json_paired(j, "time_lost_points", &c.lost_points, 3);
		json_paired(j, "kernel_points", &c.kernel_points, 3);
		if (t->n_cpu && t->end != TURNS_BOTH) {
			json_array(j, "cpus");
			for (int k = 0; k < t->n_cpu; k++) {
				json_object(j, NULL);
				json_int(j, "cpu", t->cpu[k]);
				json_string(j, "verdict", paired_verdict_name(c.cpu_verdict[k]));
				json_paired(j, "load_points", &c.cpu_points[k], 3);
				json_uint(j, "ceiling_slots", c.cpu_ceiling[k]);
				json_close(j);
			}
			json_close(j);
		}
		turns_compare_free(&c);
		json_close(j);
	}
	json_close(j);
}

/*
 * How far behind the sender's slots its bytes went out, and reached the
 * receiver: the send queue as each slot's measure began (its median), in
 * bytes and in ms at the slots' rate; and the bound on it, where there was.
 */
static void json_send_queue(const struct turns *t, struct json *j)
{
	uint64_t *q = malloc((t->n_slots ? t->n_slots : 1) * sizeof(*q)), bytes = 0, ns = 0, median;

	if (!q)
		err(1, "malloc");
	for (size_t i = 0; i < t->n_slots; i++) {
		q[i] = t->slots[i].queued;
		bytes += t->slots[i].bytes;
		ns += t->slots[i].fig.ns;
	}
	median = turns_median(q, t->n_slots);
	free(q);
	json_object(j, "send_queue");
	if (t->notsent_lowat)
		json_int(j, "notsent_lowat", t->notsent_lowat);
	else
		json_null(j, "notsent_lowat");
	if (t->n_slots && bytes) {
		json_uint(j, "median_bytes", median);
		json_double(j, "median_ms", median * (ns / 1e6) / bytes, 2);
	} else {
		json_null(j, "median_bytes");
		json_null(j, "median_ms");
	}
	json_close(j);
}

void turns_json(const struct turns *t, struct json *j)
{
	json_int(j, "slot_ms", t->slot_ms);
	json_int(j, "block_cycles", turns_block_cycles(t));
	json_arms(t, j);
	if (turns_metered(t)) {
		json_comparisons(t, j);
	} else {
		json_null(j, "cheapest");
		json_null(j, "comparisons");
	}
	json_array(j, "slots");
	for (size_t i = 0; i < t->n_slots; i++) {
		const struct turns_slot *sl = &t->slots[i];

		json_object(j, NULL);
		json_uint(j, "arm", sl->arm + 1);
		json_uint(j, "cycle", sl->cycle + 1);
		json_double(j, "seconds", timing_secs(sl->fig.ns), 6);
		json_uint(j, "bytes", sl->bytes);
		if (turns_metered(t) && t->end != TURNS_BOTH) {
			json_double(j, "load_pct", 100 * sl->fig.load, 2);
			json_double(j, "time_lost_pct", 100 * sl->fig.time_lost, 2);
			json_pct(j, "kernel_pct", sl->fig.kernel, 2);
		}
		json_close(j);
	}
	json_close(j);
	if (t->end == TURNS_SENDER)
		json_send_queue(t, j);
}

