/*
 * zcc -m A,B,...: the arms of one stream, their slots and the samples at
 * their edges, and what the slots say, arm against arm.
 */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/paired.h"
#include "lib/timing.h"
#include "lib/units.h"
#include "alternate.h"

/*
 * A slot's first quarter is not measured: the data the arm before left in
 * the socket's buffers and the receiver's is still being sent and read then
 * (a few MiB, 10 ms at 400 MB/s), on that arm's account.
 */
#define GUARD_SHARE 4

/* The verdict's bound: two arms whose difference lies within +-5% are the same. */
#define SAME_PCT 5.0

void alt_setup(struct alternation *alt, const struct send_mode *const *modes, unsigned n,
	       const struct tx_config *c, long slot_ms)
{
	struct tx_config others = *c;

	memset(alt, 0, sizeof(*alt));
	alt->n_arms = n;
	alt->slot_ms = slot_ms;
	alt->debug = c->debug;
	/* -R: the socket is paced once, by the arm that connects it. */
	others.rate = 0;
	for (unsigned i = 0; i < n; i++)
		tx_sender_setup(&alt->arms[i], modes[i], i == 0 ? c : &others);
	alt->current = &alt->arms[0];
	alt->seed = (unsigned)timing_now_ns() ^ (unsigned)getpid();
}

void alt_connected(struct alternation *alt)
{
	for (unsigned i = 0; i < alt->n_arms; i++) {
		alt->arms[i].sock = alt->arms[0].sock;
		tx_sender_connected(&alt->arms[i]);
	}
}

/* The next cycle's order of the arms, shuffled (Fisher-Yates). */
static void shuffle(struct alternation *alt)
{
	for (unsigned i = 0; i < alt->n_arms; i++)
		alt->order[i] = i;
	for (unsigned i = alt->n_arms - 1; i > 0; i--) {
		unsigned j = rand_r(&alt->seed) % (i + 1), t = alt->order[i];

		alt->order[i] = alt->order[j];
		alt->order[j] = t;
	}
}

/* An arm's name: its mode's, and its place in -m's list where the mode comes twice. */
static const char *arm_name(const struct alternation *alt, unsigned i, char *buf, size_t len)
{
	const char *mode = alt->arms[i].mode->name;

	for (unsigned k = 0; k < alt->n_arms; k++)
		if (k != i && alt->arms[k].mode == alt->arms[i].mode) {
			snprintf(buf, len, "%s#%u", mode, i + 1);
			return buf;
		}
	snprintf(buf, len, "%s", mode);
	return buf;
}

/* A sample of the meter now; without one, or once one failed, the time alone. */
static void sample(struct alternation *alt, struct soak_sample *s)
{
	if (alt->meter && !alt->spoiled) {
		if (soak_take(&alt->meter->soak, s) == 0)
			return;
		alt->spoiled = 1;
	}
	s->ns = timing_now_ns();
}

/* A slot begins now, for the arm next in the cycle. */
static void begin_slot(struct alternation *alt, uint64_t now)
{
	struct sender *before = alt->current;
	char name[40];

	if (alt->at == alt->n_arms) {
		alt->at = 0;
		alt->cycle++;
	}
	if (alt->at == 0)
		shuffle(alt);
	alt->cur = alt->order[alt->at++];
	alt->current = &alt->arms[alt->cur];
	alt->current->sent = before->sent;
	alt->current->calls = before->calls;
	alt->slot_start_ns = now;
	alt->measuring = 0;
	alt->turns++;
	if (alt->debug)
		fprintf(stderr, "zcc: slot %llu, cycle %u, arm %u (%s)\n",
			(unsigned long long)alt->turns, alt->cycle + 1, alt->cur + 1,
			arm_name(alt, alt->cur, name, sizeof(name)));
}

void alt_start(struct alternation *alt, struct meter *m)
{
	alt->meter = m;
	if (m && (soak_sample_init(&m->soak, &alt->a) < 0 || soak_sample_init(&m->soak, &alt->b) < 0))
		err(1, "the meter's samples");
	alt->guard_ns = alt->slot_ms * 1000000ULL / GUARD_SHARE;
	alt->at = alt->n_arms;
	alt->cycle = UINT32_MAX;
	begin_slot(alt, timing_now_ns());
}

/* The slot that ends now: what it measured past its guard, kept. */
static void end_slot(struct alternation *alt)
{
	struct alt_slot *sl;

	if (!alt->measuring) {
		alt->short_slots++;
		return;
	}
	sample(alt, &alt->b);
	if (alt->n_slots == alt->cap_slots) {
		alt->cap_slots = alt->cap_slots ? 2 * alt->cap_slots : 256;
		alt->slots = realloc(alt->slots, alt->cap_slots * sizeof(*alt->slots));
		if (!alt->slots)
			err(1, "realloc");
	}
	sl = &alt->slots[alt->n_slots++];
	*sl = (struct alt_slot){ .arm = alt->cur, .cycle = alt->cycle,
				 .bytes = alt->current->sent - alt->sent_at_guard };
	if (alt->meter && !alt->spoiled)
		soak_figures(&alt->meter->ref, &alt->a, &alt->b, alt->meter->soak.n_cpus, sl->bytes,
			     &sl->fig);
	sl->fig.ns = alt->b.ns - alt->a.ns;
}

struct sender *alt_turn(void *arg)
{
	struct alternation *alt = arg;
	uint64_t now = timing_now_ns();

	/*
	 * The arm changes between files only: a slot whose guard and end both
	 * passed while one file was sent has no window of its own to measure.
	 */
	if (now >= alt->slot_start_ns + alt->slot_ms * 1000000ULL) {
		end_slot(alt);
		begin_slot(alt, timing_now_ns());
	} else if (!alt->measuring && now >= alt->slot_start_ns + alt->guard_ns) {
		sample(alt, &alt->a);
		alt->sent_at_guard = alt->current->sent;
		alt->measuring = 1;
	}
	return alt->current;
}

void alt_finish(struct alternation *alt, uint64_t *zc_sends, uint64_t *zc_copied)
{
	uint64_t sends = 0, copied = 0;

	for (unsigned i = 0; i < alt->n_arms; i++) {
		struct sender *a = &alt->arms[i];

		/* zcs has closed: every byte was acknowledged, and every buffer is due back. */
		if (a != alt->current && a->mode->finish)
			a->mode->finish(a);
		sends += a->zc_sends;
		copied += a->zc_copied;
	}
	*zc_sends = sends;
	*zc_copied = copied;
}

void alt_warn(const struct alternation *alt)
{
	size_t all = alt->n_slots + alt->short_slots;

	if (alt->short_slots * 10 > all)
		warnx("note: %zu of %zu slots had nothing to measure: the arms change between files, "
		      "and a file took longer to send than a quarter of a slot (-A %ld); send "
		      "smaller files, or give longer slots", alt->short_slots, all, alt->slot_ms);
}

void alt_close(struct alternation *alt)
{
	for (unsigned i = 1; i < alt->n_arms; i++) {
		alt->arms[i].sock = -1;
		tx_sender_close(&alt->arms[i]);
	}
	tx_sender_close(&alt->arms[0]);
	if (alt->meter) {
		soak_sample_free(&alt->a);
		soak_sample_free(&alt->b);
	}
}

/* One arm's slots, over the run or a block of cycles, summed. */
struct arm_sum {
	size_t slots;
	uint64_t ns, bytes;
	double load_ns, lost_ns, kernel_ns, kernel_weight_ns;
};

static void add_slot(struct arm_sum *s, const struct alt_slot *sl)
{
	s->slots++;
	s->ns += sl->fig.ns;
	s->bytes += sl->bytes;
	s->load_ns += sl->fig.load * sl->fig.ns;
	s->lost_ns += sl->fig.time_lost * sl->fig.ns;
	if (!isnan(sl->fig.kernel)) {
		s->kernel_ns += sl->fig.kernel * sl->fig.ns;
		s->kernel_weight_ns += sl->fig.ns;
	}
}

/* An arm's slots over the whole run. */
static void sum_arm(const struct alternation *alt, unsigned arm, struct arm_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < alt->n_slots; i++)
		if (alt->slots[i].arm == arm)
			add_slot(s, &alt->slots[i]);
}

static double sum_load(const struct arm_sum *s)
{
	return s->ns ? s->load_ns / s->ns : NAN;
}

static double sum_lost(const struct arm_sum *s)
{
	return s->ns ? s->lost_ns / s->ns : NAN;
}

static double sum_kernel(const struct arm_sum *s)
{
	return s->kernel_weight_ns ? s->kernel_ns / s->kernel_weight_ns : NAN;
}

/* CPU microseconds a KiB: a load (the soakers' or the kernel's view), times the CPUs, over the slots' time. */
static double demand_of(const struct alternation *alt, const struct arm_sum *s, double load)
{
	return s->bytes ? load * alt->meter->soak.n_cpus * (s->ns / 1e3) / (s->bytes / 1024.0) : NAN;
}

static double sum_demand(const struct alternation *alt, const struct arm_sum *s)
{
	return demand_of(alt, s, sum_load(s));
}

static int metered(const struct alternation *alt)
{
	return alt->meter && !alt->spoiled && alt->n_slots > 0;
}

/* The arm with the least demand over the whole run: the others are set against it. */
static unsigned cheapest(const struct alternation *alt)
{
	unsigned best = 0;
	double best_d = INFINITY;
	struct arm_sum s;

	for (unsigned i = 0; i < alt->n_arms; i++) {
		sum_arm(alt, i, &s);
		if (sum_demand(alt, &s) < best_d) {
			best_d = sum_demand(alt, &s);
			best = i;
		}
	}
	return best;
}

/*
 * Arm x against arm r, block by block: the demand's change in %, by the
 * soakers and by the kernel's view; the load's, the time lost's and the
 * kernel's view's in points.
 */
struct comparison {
	unsigned x, r;
	struct paired demand_pct, kernel_demand_pct, load_points, lost_points, kernel_points;
	enum paired_verdict verdict;
};

/*
 * The cycles a block of the comparison holds: one, or as few more as keep
 * the blocks within PAIRED_MAX_N. Each block gives one difference between
 * two arms, from the slots each had in it.
 */
static uint32_t n_cycles(const struct alternation *alt)
{
	return alt->n_slots ? alt->slots[alt->n_slots - 1].cycle + 1 : 0;
}

static uint32_t block_cycles(const struct alternation *alt)
{
	uint32_t cycles = n_cycles(alt);

	return cycles > PAIRED_MAX_N ? (cycles + PAIRED_MAX_N - 1) / PAIRED_MAX_N : 1;
}

static void estimate(double *v, size_t n, struct paired *p)
{
	if (paired_estimate(v, n, p) < 0)
		err(1, "the comparison's %zu differences", n);
}

/*
 * A block's change in demand is its difference over the cheapest arm's
 * demand in the whole run: a block's own, from a slot or two, is too rough
 * to divide by (the kernel's view of a 30 ms window is a few ticks of
 * /proc/stat, and 0 now and then).
 */
static void compare(const struct alternation *alt, unsigned x, unsigned r, struct comparison *c)
{
	uint32_t per = block_cycles(alt);
	size_t blocks = n_cycles(alt) / per, n = 0, np = 0, nk = 0;
	struct arm_sum all, *bx = calloc(blocks + 1, sizeof(*bx)), *br = calloc(blocks + 1, sizeof(*br));
	double d_all, k_all;
	double *pct = calloc(blocks + 1, sizeof(double)), *load = calloc(blocks + 1, sizeof(double));
	double *kern = calloc(blocks + 1, sizeof(double)), *lost = calloc(blocks + 1, sizeof(double));
	double *kpct = calloc(blocks + 1, sizeof(double));

	if (!bx || !br || !pct || !load || !kern || !lost || !kpct)
		err(1, "calloc");
	sum_arm(alt, r, &all);
	d_all = sum_demand(alt, &all);
	k_all = demand_of(alt, &all, sum_kernel(&all));
	/* Both arms' slots into their blocks, in one pass (a partial last block left out). */
	for (size_t i = 0; i < alt->n_slots; i++) {
		const struct alt_slot *sl = &alt->slots[i];
		size_t b = sl->cycle / per;

		if (b < blocks && (sl->arm == x || sl->arm == r))
			add_slot(sl->arm == x ? &bx[b] : &br[b], sl);
	}
	for (size_t b = 0; b < blocks; b++) {
		const struct arm_sum *sx = &bx[b], *sr = &br[b];
		double dx, dr;

		dx = sum_demand(alt, sx);
		dr = sum_demand(alt, sr);
		if (!sx->slots || !sr->slots)
			continue;
		/* A share of a demand of 0 or below (a load under the calibration) means nothing. */
		if (d_all > 0 && !isnan(dx) && !isnan(dr))
			pct[np++] = 100 * (dx - dr) / d_all;
		lost[n] = 100 * (sum_lost(sx) - sum_lost(sr));
		load[n++] = 100 * (sum_load(sx) - sum_load(sr));
		if (!isnan(sum_kernel(sx)) && !isnan(sum_kernel(sr)) && k_all > 0) {
			kpct[nk] = 100 * (demand_of(alt, sx, sum_kernel(sx)) -
					  demand_of(alt, sr, sum_kernel(sr))) / k_all;
			kern[nk++] = 100 * (sum_kernel(sx) - sum_kernel(sr));
		}
	}
	c->x = x;
	c->r = r;
	estimate(pct, np, &c->demand_pct);
	estimate(load, n, &c->load_points);
	estimate(lost, n, &c->lost_points);
	estimate(kern, nk, &c->kernel_points);
	estimate(kpct, nk, &c->kernel_demand_pct);
	c->verdict = paired_verdict(&c->demand_pct, SAME_PCT);
	free(pct);
	free(load);
	free(kern);
	free(lost);
	free(kpct);
	free(bx);
	free(br);
}

/*
 * Which of the load's parts a difference in demand is in: the kernel's view
 * (time a task was charged for) when it moved the same way by half as much
 * or more; else the slowdown, time no task is charged for.
 */
static const char *carried_by(const struct comparison *c)
{
	const struct paired *d = &c->demand_pct, *k = &c->kernel_demand_pct;
	int k_moved = paired_verdict(k, 0) == PAIRED_DIFFERS && (k->estimate > 0) == (d->estimate > 0);

	if (c->verdict != PAIRED_DIFFERS)
		return NULL;
	return k_moved && fabs(k->estimate) >= fabs(d->estimate) / 2 ? "the kernel's view carries it"
								 : "the slowdown carries it";
}

static void print_arm(const struct alternation *alt, unsigned i, FILE *out, char unit)
{
	struct arm_sum s;
	char name[40], rate[48];

	sum_arm(alt, i, &s);
	fprintf(out, "arm %s: %zu slots, %llu bytes in %.3f s, %s", arm_name(alt, i, name, sizeof(name)),
		s.slots, (unsigned long long)s.bytes, timing_secs(s.ns),
		units_rate(rate, sizeof(rate), s.bytes, s.ns, unit));
	if (metered(alt)) {
		fprintf(out, ", load %.1f%%, demand %.3f us/KB", 100 * sum_load(&s), sum_demand(alt, &s));
		if (!isnan(sum_kernel(&s)))
			fprintf(out, ", kernel %.1f%%", 100 * sum_kernel(&s));
	}
	fprintf(out, "\n");
}

static void print_comparison(const struct alternation *alt, const struct comparison *c, FILE *out)
{
	const struct paired *d = &c->demand_pct, *l = &c->load_points, *k = &c->kernel_demand_pct;
	const char *carried = carried_by(c);
	char xn[40], rn[40];

	arm_name(alt, c->x, xn, sizeof(xn));
	arm_name(alt, c->r, rn, sizeof(rn));
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
	if (k->n)
		fprintf(out, ", the kernel's view %+.1f%% [%+.1f, %+.1f]", k->estimate, k->lo, k->hi);
	if (carried)
		fprintf(out, ": %s", carried);
	fprintf(out, "; load %+.2f points [%+.2f, %+.2f]; %zu blocks of %u cycle%s\n", l->estimate,
		l->lo, l->hi, l->n, block_cycles(alt), block_cycles(alt) > 1 ? "s" : "");
}

void alt_print(const struct alternation *alt, FILE *out, char unit)
{
	unsigned r;
	struct comparison c;

	for (unsigned i = 0; i < alt->n_arms; i++)
		print_arm(alt, i, out, unit);
	if (!metered(alt))
		return;
	r = cheapest(alt);
	for (unsigned i = 0; i < alt->n_arms; i++) {
		if (i == r)
			continue;
		compare(alt, i, r, &c);
		print_comparison(alt, &c, out);
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

void alt_json(const struct alternation *alt, struct json *j)
{
	char name[40];
	struct arm_sum s;
	struct comparison c;
	unsigned r = metered(alt) ? cheapest(alt) : 0;

	json_int(j, "slot_ms", alt->slot_ms);
	json_int(j, "block_cycles", block_cycles(alt));
	json_array(j, "arms");
	for (unsigned i = 0; i < alt->n_arms; i++) {
		sum_arm(alt, i, &s);
		json_object(j, NULL);
		json_string(j, "arm", arm_name(alt, i, name, sizeof(name)));
		json_string(j, "mode", alt->arms[i].mode->name);
		json_uint(j, "slots", s.slots);
		json_uint(j, "bytes", s.bytes);
		json_double(j, "seconds", timing_secs(s.ns), 6);
		json_uint(j, "kbytes_per_sec", timing_kbytes_per_sec(s.bytes, s.ns));
		if (metered(alt)) {
			json_double(j, "load_pct", 100 * sum_load(&s), 2);
			json_double(j, "demand_us_per_kb", sum_demand(alt, &s), 4);
			if (isnan(sum_kernel(&s)))
				json_null(j, "kernel_pct");
			else
				json_double(j, "kernel_pct", 100 * sum_kernel(&s), 2);
		}
		json_close(j);
	}
	json_close(j);
	if (metered(alt)) {
		json_string(j, "cheapest", arm_name(alt, r, name, sizeof(name)));
		json_array(j, "comparisons");
		for (unsigned i = 0; i < alt->n_arms; i++) {
			if (i == r)
				continue;
			compare(alt, i, r, &c);
			json_object(j, NULL);
			json_string(j, "arm", arm_name(alt, i, name, sizeof(name)));
			json_string(j, "against", arm_name(alt, r, name, sizeof(name)));
			json_string(j, "verdict", paired_verdict_name(c.verdict));
			json_string(j, "carried_by", !carried_by(&c) ? NULL
						     : strstr(carried_by(&c), "kernel") ? "kernel"
											 : "slowdown");
			json_paired(j, "demand_pct", &c.demand_pct, 2);
			json_paired(j, "kernel_demand_pct", &c.kernel_demand_pct, 2);
			json_paired(j, "load_points", &c.load_points, 3);
			json_paired(j, "time_lost_points", &c.lost_points, 3);
			json_paired(j, "kernel_points", &c.kernel_points, 3);
			json_close(j);
		}
		json_close(j);
	} else {
		json_null(j, "cheapest");
		json_null(j, "comparisons");
	}
	json_array(j, "slots");
	for (size_t i = 0; i < alt->n_slots; i++) {
		const struct alt_slot *sl = &alt->slots[i];

		json_object(j, NULL);
		json_uint(j, "arm", sl->arm + 1);
		json_uint(j, "cycle", sl->cycle + 1);
		json_double(j, "seconds", timing_secs(sl->fig.ns), 6);
		json_uint(j, "bytes", sl->bytes);
		if (metered(alt)) {
			json_double(j, "load_pct", 100 * sl->fig.load, 2);
			json_double(j, "time_lost_pct", 100 * sl->fig.time_lost, 2);
			if (isnan(sl->fig.kernel))
				json_null(j, "kernel_pct");
			else
				json_double(j, "kernel_pct", 100 * sl->fig.kernel, 2);
		}
		json_close(j);
	}
	json_close(j);
}
