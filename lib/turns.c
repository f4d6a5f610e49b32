#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "paired.h"
#include "proto.h"
#include "timing.h"
#include "turns.h"
#include "units.h"

/* The verdict's bound: two arms whose difference lies within +-5% are the same. */
#define SAME_PCT 5.0

void turns_init(struct turns *t, enum turns_end end, const char *const *modes, unsigned n_arms,
		long slot_ms)
{
	turns_init_named(t, end, modes, NULL, n_arms, slot_ms);
}

void turns_init_named(struct turns *t, enum turns_end end, const char *const *modes,
		      const char *const *names, unsigned n_arms, long slot_ms)
{
	memset(t, 0, sizeof(*t));
	t->end = end;
	t->n_arms = n_arms < TURNS_MAX_ARMS ? n_arms : TURNS_MAX_ARMS;
	t->slot_ms = slot_ms;
	for (unsigned i = 0; i < t->n_arms; i++) {
		int twice = 0;

		for (unsigned k = 0; k < t->n_arms; k++)
			twice |= k != i && strcmp(modes[k], modes[i]) == 0;
		snprintf(t->mode[i], sizeof(t->mode[i]), "%s", modes[i]);
		/* At most TURNS_MAX_ARMS arms: "#N" is two bytes. */
		if (names)
			snprintf(t->arm[i], sizeof(t->arm[i]), "%s", names[i]);
		else if (twice)
			snprintf(t->arm[i], sizeof(t->arm[i]), "%.30s#%c", modes[i], '1' + (char)i);
		else
			snprintf(t->arm[i], sizeof(t->arm[i]), "%s", modes[i]);
	}
}

/* No slots yet, the arms those of like, by its modes and names: the other end's, or the sum's. */
static void init_like(struct turns *t, enum turns_end end, const struct turns *like)
{
	const char *modes[TURNS_MAX_ARMS], *names[TURNS_MAX_ARMS];

	for (unsigned a = 0; a < like->n_arms; a++) {
		modes[a] = like->mode[a];
		names[a] = like->arm[a];
	}
	turns_init_named(t, end, modes, names, like->n_arms, like->slot_ms);
}

void turns_add(struct turns *t, const struct turns_slot *sl)
{
	if (t->n_slots == t->cap_slots) {
		t->cap_slots = t->cap_slots ? 2 * t->cap_slots : 256;
		t->slots = realloc(t->slots, t->cap_slots * sizeof(*t->slots));
		if (!t->slots)
			err(1, "realloc");
	}
	t->slots[t->n_slots++] = *sl;
}

void turns_free(struct turns *t)
{
	free(t->slots);
	t->slots = NULL;
	t->n_slots = t->cap_slots = 0;
}

/* CPU nanoseconds a slot's figures say it took, by a load (the soakers' or the kernel's view). */
static double cpu_ns(const struct turns_slot *sl, int n_cpus, double load)
{
	return load * n_cpus * (double)sl->fig.ns;
}

/*
 * The two ends' CPU time over a slot, as a load of the sender's CPUs over
 * the sender's window and bytes: the receiver's part scaled to the sender's
 * bytes, so that the slot's demand is the sum of the two ends' demands.
 */
static double summed(const struct turns_slot *s, int s_cpus, double s_load,
		     const struct turns_slot *r, int r_cpus, double r_load)
{
	double cpu = cpu_ns(s, s_cpus, s_load) + cpu_ns(r, r_cpus, r_load) * s->bytes / r->bytes;

	return cpu / (s_cpus * (double)s->fig.ns);
}

void turns_sum(const struct turns *sender, const struct turns *receiver, struct turns *both)
{
	size_t i = 0, k = 0;

	init_like(both, TURNS_BOTH, sender);
	both->n_cpus = sender->n_cpus && receiver->n_cpus ? sender->n_cpus : 0;
	if (!both->n_cpus)
		return;
	while (i < sender->n_slots && k < receiver->n_slots) {
		const struct turns_slot *s = &sender->slots[i], *r = &receiver->slots[k];
		struct turns_slot sl;

		if (s->at != r->at) {
			s->at < r->at ? i++ : k++;
			continue;
		}
		i++, k++;
		if (!s->bytes || !r->bytes || !s->fig.ns)
			continue;
		sl = *s;
		sl.fig.load = summed(s, sender->n_cpus, s->fig.load, r, receiver->n_cpus, r->fig.load);
		sl.fig.time_lost = summed(s, sender->n_cpus, s->fig.time_lost, r, receiver->n_cpus,
					  r->fig.time_lost);
		sl.fig.kernel = isnan(s->fig.kernel) || isnan(r->fig.kernel)
					? NAN
					: summed(s, sender->n_cpus, s->fig.kernel, r, receiver->n_cpus,
						 r->fig.kernel);
		turns_add(both, &sl);
	}
}

/* One arm's slots, over the run or a block of cycles, summed. */
struct arm_sum {
	size_t slots;
	uint64_t ns, bytes;
	double load_ns, lost_ns, kernel_ns, kernel_weight_ns;
};

static void add_slot(struct arm_sum *s, const struct turns_slot *sl)
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
static void sum_arm(const struct turns *t, unsigned arm, struct arm_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < t->n_slots; i++)
		if (t->slots[i].arm == arm)
			add_slot(s, &t->slots[i]);
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
static double demand_of(const struct turns *t, const struct arm_sum *s, double load)
{
	return s->bytes ? load * t->n_cpus * (s->ns / 1e3) / (s->bytes / 1024.0) : NAN;
}

static double sum_demand(const struct turns *t, const struct arm_sum *s)
{
	return demand_of(t, s, sum_load(s));
}

static int metered(const struct turns *t)
{
	return t->n_cpus > 0 && t->n_slots > 0;
}

/* The arm with the least demand over the whole run: the others are set against it. */
static unsigned cheapest(const struct turns *t)
{
	unsigned best = 0;
	double best_d = INFINITY;
	struct arm_sum s;

	for (unsigned i = 0; i < t->n_arms; i++) {
		sum_arm(t, i, &s);
		if (sum_demand(t, &s) < best_d) {
			best_d = sum_demand(t, &s);
			best = i;
		}
	}
	return best;
}

/* Which of the load's parts a difference in demand is in, where it differs. */
enum carrier { CARRIED_BY_NONE, CARRIED_BY_KERNEL, CARRIED_BY_SLOWDOWN };

/*
 * Arm x against arm r, block by block: the demand's change in %, by the
 * soakers and by the kernel's view; the load's, the time lost's and the
 * kernel's view's in points.
 */
struct comparison {
	unsigned x, r;
	struct paired demand_pct, kernel_demand_pct, load_points, lost_points, kernel_points;
	enum paired_verdict verdict;
	enum carrier carried_by;
};

/*
 * The cycles a block of the comparison holds: one, or as few more as keep
 * the blocks within PAIRED_MAX_N. Each block gives one difference between
 * two arms, from the slots each had in it.
 */
static uint32_t n_cycles(const struct turns *t)
{
	uint32_t last = 0;

	for (size_t i = 0; i < t->n_slots; i++)
		if (t->slots[i].cycle + 1 > last)
			last = t->slots[i].cycle + 1;
	return last;
}

static uint32_t block_cycles(const struct turns *t)
{
	uint32_t cycles = n_cycles(t);

	return cycles > PAIRED_MAX_N ? (cycles + PAIRED_MAX_N - 1) / PAIRED_MAX_N : 1;
}

static void estimate(double *v, size_t n, struct paired *p)
{
	if (paired_estimate(v, n, p) < 0)
		err(1, "the comparison's %zu differences", n);
}

/*
 * The kernel's view carries a difference in demand when it moved the same
 * way by half as much or more; else the slowdown does, time no task is
 * charged for.
 */
static enum carrier carrier_of(const struct comparison *c)
{
	const struct paired *d = &c->demand_pct, *k = &c->kernel_demand_pct;
	int k_moved = paired_verdict(k, 0) == PAIRED_DIFFERS && (k->estimate > 0) == (d->estimate > 0);

	if (c->verdict != PAIRED_DIFFERS)
		return CARRIED_BY_NONE;
	return k_moved && fabs(k->estimate) >= fabs(d->estimate) / 2 ? CARRIED_BY_KERNEL
								 : CARRIED_BY_SLOWDOWN;
}

/*
 * A block's change in demand is its difference over the cheapest arm's
 * demand in the whole run: a block's own, from a slot or two, is too rough
 * to divide by (the kernel's view of a 30 ms window is a few ticks of
 * /proc/stat, and 0 now and then).
 */
static void compare(const struct turns *t, unsigned x, unsigned r, struct comparison *c)
{
	uint32_t per = block_cycles(t);
	size_t blocks = n_cycles(t) / per, n = 0, np = 0, nk = 0;
	struct arm_sum all, *bx = calloc(blocks + 1, sizeof(*bx)), *br = calloc(blocks + 1, sizeof(*br));
	double d_all, k_all;
	double *pct = calloc(blocks + 1, sizeof(double)), *load = calloc(blocks + 1, sizeof(double));
	double *kern = calloc(blocks + 1, sizeof(double)), *lost = calloc(blocks + 1, sizeof(double));
	double *kpct = calloc(blocks + 1, sizeof(double));

	if (!bx || !br || !pct || !load || !kern || !lost || !kpct)
		err(1, "calloc");
	sum_arm(t, r, &all);
	d_all = sum_demand(t, &all);
	k_all = demand_of(t, &all, sum_kernel(&all));
	/* Both arms' slots into their blocks, in one pass (a partial last block left out). */
	for (size_t i = 0; i < t->n_slots; i++) {
		const struct turns_slot *sl = &t->slots[i];
		size_t b = sl->cycle / per;

		if (b < blocks && (sl->arm == x || sl->arm == r))
			add_slot(sl->arm == x ? &bx[b] : &br[b], sl);
	}
	for (size_t b = 0; b < blocks; b++) {
		const struct arm_sum *sx = &bx[b], *sr = &br[b];
		double dx, dr;

		dx = sum_demand(t, sx);
		dr = sum_demand(t, sr);
		if (!sx->slots || !sr->slots)
			continue;
		/* A share of a demand of 0 or below (a load under the calibration) means nothing. */
		if (d_all > 0 && !isnan(dx) && !isnan(dr))
			pct[np++] = 100 * (dx - dr) / d_all;
		lost[n] = 100 * (sum_lost(sx) - sum_lost(sr));
		load[n++] = 100 * (sum_load(sx) - sum_load(sr));
		if (!isnan(sum_kernel(sx)) && !isnan(sum_kernel(sr)) && k_all > 0) {
			kpct[nk] = 100 * (demand_of(t, sx, sum_kernel(sx)) -
					  demand_of(t, sr, sum_kernel(sr))) / k_all;
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
	c->carried_by = carrier_of(c);
	free(pct);
	free(load);
	free(kern);
	free(lost);
	free(kpct);
	free(bx);
	free(br);
}

/* What a line about the receiving end, or both, begins with. */
static const char *prefix(const struct turns *t)
{
	return t->end == TURNS_RECEIVER ? "receiver: " : t->end == TURNS_BOTH ? "both ends: " : "";
}

static void print_arm(const struct turns *t, unsigned i, FILE *out, char unit)
{
	struct arm_sum s;
	char rate[48];

	sum_arm(t, i, &s);
	fprintf(out, "%sarm %s: %zu slots, %llu bytes in %.3f s, %s", prefix(t), t->arm[i], s.slots,
		(unsigned long long)s.bytes, timing_secs(s.ns),
		units_rate(rate, sizeof(rate), s.bytes, s.ns, unit));
	if (metered(t) && t->end == TURNS_BOTH) {
		fprintf(out, ", demand %.3f us/KB", sum_demand(t, &s));
	} else if (metered(t)) {
		fprintf(out, ", load %.1f%%, demand %.3f us/KB", 100 * sum_load(&s), sum_demand(t, &s));
		if (!isnan(sum_kernel(&s)))
			fprintf(out, ", kernel %.1f%%", 100 * sum_kernel(&s));
	}
	fprintf(out, "\n");
}

int turns_views_disagree(const struct paired *d, const struct paired *k)
{
	return d->n && k->n && ((d->lo > 0 && k->hi < 0) || (d->hi < 0 && k->lo > 0));
}

static void print_comparison(const struct turns *t, const struct comparison *c, FILE *out)
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
		fprintf(out, "; %zu blocks of %u cycle%s\n", d->n, block_cycles(t),
			block_cycles(t) > 1 ? "s" : "");
		return;
	}
	if (k->n)
		fprintf(out, ", the kernel's view %+.1f%% [%+.1f, %+.1f]", k->estimate, k->lo, k->hi);
	if (c->carried_by == CARRIED_BY_KERNEL)
		fprintf(out, ": the kernel's view carries it");
	else if (c->carried_by == CARRIED_BY_SLOWDOWN && turns_views_disagree(d, k))
		fprintf(out, ": the slowdown carries it, not CPU time the kernel counted, which went "
			"the other way (the soakers ran slower beside it: caches, memory, the hypervisor)");
	else if (c->carried_by == CARRIED_BY_SLOWDOWN)
		fprintf(out, ": the slowdown carries it");
	fprintf(out, "; load %+.2f points [%+.2f, %+.2f]", l->estimate, l->lo, l->hi);
	/*
	 * At full speed an arm that moves fewer bytes loads the host less, and
	 * may still cost more a KiB.
	 */
	if (l->n && d->n && ((l->hi < 0 && d->lo > 0) || (l->lo > 0 && d->hi < 0)))
		fprintf(out, " (%s bytes a second: %s load, %s CPU a KiB)", l->hi < 0 ? "fewer" : "more",
			l->hi < 0 ? "less" : "more", l->hi < 0 ? "more" : "less");
	fprintf(out, "; %zu blocks of %u cycle%s\n", l->n, block_cycles(t),
		block_cycles(t) > 1 ? "s" : "");
}

uint64_t turns_bytes(const struct turns *t)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < t->n_slots; i++)
		bytes += t->slots[i].bytes;
	return bytes;
}

void turns_print(const struct turns *t, FILE *out, char unit)
{
	unsigned r;
	struct comparison c;

	for (unsigned i = 0; i < t->n_arms; i++)
		print_arm(t, i, out, unit);
	if (!metered(t))
		return;
	r = cheapest(t);
	for (unsigned i = 0; i < t->n_arms; i++) {
		if (i == r)
			continue;
		compare(t, i, r, &c);
		print_comparison(t, &c, out);
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

static void json_pct_or_null(struct json *j, const char *key, double v)
{
	if (isnan(v))
		json_null(j, key);
	else
		json_double(j, key, 100 * v, 2);
}

static void json_arms(const struct turns *t, struct json *j)
{
	struct arm_sum s;

	json_array(j, "arms");
	for (unsigned i = 0; i < t->n_arms; i++) {
		sum_arm(t, i, &s);
		json_object(j, NULL);
		json_string(j, "arm", t->arm[i]);
		json_string(j, "mode", t->mode[i]);
		json_uint(j, "slots", s.slots);
		json_uint(j, "bytes", s.bytes);
		json_double(j, "seconds", timing_secs(s.ns), 6);
		json_uint(j, "kbytes_per_sec", timing_kbytes_per_sec(s.bytes, s.ns));
		/* Both ends' loads are of two hosts: their sum is the demand's alone. */
		if (metered(t) && t->end != TURNS_BOTH) {
			json_double(j, "load_pct", 100 * sum_load(&s), 2);
			json_double(j, "demand_us_per_kb", sum_demand(t, &s), 4);
			json_pct_or_null(j, "kernel_pct", sum_kernel(&s));
		} else if (metered(t)) {
			json_double(j, "demand_us_per_kb", sum_demand(t, &s), 4);
		}
		json_close(j);
	}
	json_close(j);
}

static const char *carrier_name(enum carrier c)
{
	return c == CARRIED_BY_KERNEL ? "kernel" : c == CARRIED_BY_SLOWDOWN ? "slowdown" : NULL;
}

static void json_comparisons(const struct turns *t, struct json *j)
{
	unsigned r = cheapest(t);
	struct comparison c;

	json_string(j, "cheapest", t->arm[r]);
	json_array(j, "comparisons");
	for (unsigned i = 0; i < t->n_arms; i++) {
		if (i == r)
			continue;
		compare(t, i, r, &c);
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
		json_close(j);
	}
	json_close(j);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t turns_median(const uint64_t *v, size_t n)
{
	uint64_t *q, m;

	if (!n)
		return 0;
	q = malloc(n * sizeof(*q));
	if (!q)
		err(1, "malloc");
	memcpy(q, v, n * sizeof(*q));
	qsort(q, n, sizeof(*q), by_value);
	m = q[n / 2];
	free(q);
	return m;
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
	json_int(j, "block_cycles", block_cycles(t));
	json_arms(t, j);
	if (metered(t)) {
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
		if (metered(t) && t->end != TURNS_BOTH) {
			json_double(j, "load_pct", 100 * sl->fig.load, 2);
			json_double(j, "time_lost_pct", 100 * sl->fig.time_lost, 2);
			json_pct_or_null(j, "kernel_pct", sl->fig.kernel);
		}
		json_close(j);
	}
	json_close(j);
	if (t->end == TURNS_SENDER)
		json_send_queue(t, j);
}

/* The wire's writer and reader: big-endian integers, doubles by their IEEE 754 bits. */
struct wire {
	unsigned char *buf;
	size_t len, cap;
	const unsigned char *in;
	size_t in_len, at;
	int short_read;
};

static void put(struct wire *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		while (w->len + n > w->cap)
			w->cap = w->cap ? 2 * w->cap : 4096;
		w->buf = realloc(w->buf, w->cap);
		if (!w->buf)
			err(1, "realloc");
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_u32(struct wire *w, uint32_t v)
{
	unsigned char b[PROTO_U32_BYTES];

	proto_put_u32(b, v);
	put(w, b, sizeof(b));
}

static void put_u64(struct wire *w, uint64_t v)
{
	put_u32(w, v >> 32);
	put_u32(w, (uint32_t)v);
}

static void put_double(struct wire *w, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	put_u64(w, v);
}

static const unsigned char *get(struct wire *w, size_t n)
{
	const unsigned char *p = w->in + w->at;

	if (w->short_read || n > w->in_len - w->at) {
		w->short_read = 1;
		return NULL;
	}
	w->at += n;
	return p;
}

static uint32_t get_u32(struct wire *w)
{
	const unsigned char *p = get(w, PROTO_U32_BYTES);

	return p ? proto_get_u32(p) : 0;
}

static uint64_t get_u64(struct wire *w)
{
	uint64_t hi = get_u32(w);

	return hi << 32 | get_u32(w);
}

static double get_double(struct wire *w)
{
	uint64_t v = get_u64(w);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

unsigned char *turns_table_encode(const struct turns *t, const struct turns_range *ranges,
				  size_t *len)
{
	struct wire w = { 0 };

	put(&w, TURNS_TABLE_MAGIC, 4);
	put_u32(&w, t->slot_ms);
	put_u32(&w, t->n_arms);
	for (unsigned i = 0; i < t->n_arms; i++) {
		/*
		 * An arm named for its mode ("write", "write#2") goes by its mode,
		 * and zcs names it so too; one named otherwise (-X's "b=64k"), by
		 * its name.
		 */
		const char *name = strncmp(t->arm[i], t->mode[i], strlen(t->mode[i])) == 0 ?
					   t->mode[i] : t->arm[i];

		put_u32(&w, strlen(name));
		put(&w, name, strlen(name));
	}
	put_u32(&w, t->n_slots);
	for (size_t i = 0; i < t->n_slots; i++) {
		put_u32(&w, ranges[i].arm);
		put_u32(&w, ranges[i].cycle);
		put_u64(&w, ranges[i].from);
		put_u64(&w, ranges[i].to);
	}
	*len = w.len;
	return w.buf;
}

/* The record a slot takes in the table, and in the answer. */
#define TABLE_SLOT_BYTES 24
#define ANSWER_SLOT_BYTES 44

int turns_table_decode(const unsigned char *buf, size_t len, struct turns *t,
		       struct turns_range **ranges, size_t *n, char *why, size_t why_len)
{
	struct wire w = { .in = buf, .in_len = len };
	char modes[TURNS_MAX_ARMS][TURNS_NAME_BYTES];
	const char *names[TURNS_MAX_ARMS];
	const unsigned char *magic = get(&w, 4);
	uint32_t slot_ms = get_u32(&w), n_arms = get_u32(&w), n_slots;

	*ranges = NULL;
	*n = 0;
	if (!magic || memcmp(magic, TURNS_TABLE_MAGIC, 4) != 0) {
		snprintf(why, why_len, "it does not begin with %s", TURNS_TABLE_MAGIC);
		return -1;
	}
	if (n_arms < 2 || n_arms > TURNS_MAX_ARMS) {
		snprintf(why, why_len, "%u arms (2 to %d)", n_arms, TURNS_MAX_ARMS);
		return -1;
	}
	for (uint32_t i = 0; i < n_arms; i++) {
		uint32_t k = get_u32(&w);
		const unsigned char *p = k < TURNS_NAME_BYTES ? get(&w, k) : NULL;

		if (!p) {
			snprintf(why, why_len, "arm %u's mode is cut short or longer than %d bytes", i + 1,
				 TURNS_NAME_BYTES - 1);
			return -1;
		}
		for (uint32_t c = 0; c < k; c++)
			if (p[c] < '!' || p[c] > '~') {
				snprintf(why, why_len, "arm %u's mode has a byte that is not printable", i + 1);
				return -1;
			}
		memcpy(modes[i], p, k);
		modes[i][k] = 0;
		names[i] = modes[i];
	}
	n_slots = get_u32(&w);
	if (w.short_read || n_slots > TURNS_MAX_SLOTS || (size_t)n_slots * TABLE_SLOT_BYTES != len - w.at) {
		snprintf(why, why_len, "%u slots in %zu bytes", n_slots, w.short_read ? 0 : len - w.at);
		return -1;
	}
	*ranges = calloc(n_slots ? n_slots : 1, sizeof(**ranges));
	if (!*ranges)
		err(1, "calloc");
	for (uint32_t i = 0; i < n_slots; i++) {
		struct turns_range *r = &(*ranges)[i];

		r->arm = get_u32(&w);
		r->cycle = get_u32(&w);
		r->from = get_u64(&w);
		r->to = get_u64(&w);
		if (r->arm >= n_arms || r->to < r->from || (i && r->from < (*ranges)[i - 1].to)) {
			snprintf(why, why_len, "slot %u: arm %u, bytes %llu to %llu, out of order or range",
				 i + 1, r->arm + 1, (unsigned long long)r->from, (unsigned long long)r->to);
			free(*ranges);
			*ranges = NULL;
			return -1;
		}
	}
	turns_init(t, TURNS_RECEIVER, names, n_arms, slot_ms);
	*n = n_slots;
	return 0;
}

unsigned char *turns_answer_encode(const struct turns_slot *slots, const int *measured, size_t n,
				   int n_cpus, size_t *len)
{
	struct wire w = { 0 };

	put(&w, TURNS_ANSWER_MAGIC, 4);
	put_u32(&w, n_cpus);
	put_u32(&w, n);
	for (size_t i = 0; i < n; i++) {
		put_u32(&w, measured[i]);
		put_u64(&w, slots[i].bytes);
		put_u64(&w, slots[i].fig.ns);
		put_double(&w, slots[i].fig.load);
		put_double(&w, slots[i].fig.time_lost);
		put_double(&w, slots[i].fig.kernel);
	}
	*len = w.len;
	return w.buf;
}

int turns_answer_decode(const unsigned char *buf, size_t len, const struct turns *sender,
			struct turns *t, char *why, size_t why_len)
{
	struct wire w = { .in = buf, .in_len = len };
	const unsigned char *magic = get(&w, 4);
	uint32_t n_cpus = get_u32(&w), n = get_u32(&w);

	if (!magic || memcmp(magic, TURNS_ANSWER_MAGIC, 4) != 0) {
		snprintf(why, why_len, "it does not begin with %s", TURNS_ANSWER_MAGIC);
		return -1;
	}
	if (w.short_read || n != sender->n_slots || (size_t)n * ANSWER_SLOT_BYTES != len - w.at) {
		snprintf(why, why_len, "%u slots in %zu bytes, for a table of %zu", n,
			 w.short_read ? 0 : len - w.at, sender->n_slots);
		return -1;
	}
	if (n_cpus > 4096) {
		snprintf(why, why_len, "a meter of %u CPUs", n_cpus);
		return -1;
	}
	init_like(t, TURNS_RECEIVER, sender);
	t->n_cpus = n_cpus;
	for (uint32_t i = 0; i < n; i++) {
		struct turns_slot sl = { .arm = sender->slots[i].arm, .cycle = sender->slots[i].cycle,
					 .at = sender->slots[i].at };
		int measured = get_u32(&w);

		sl.bytes = get_u64(&w);
		sl.fig.ns = get_u64(&w);
		sl.fig.load = get_double(&w);
		sl.fig.time_lost = get_double(&w);
		sl.fig.kernel = get_double(&w);
		if (!measured)
			continue;
		if (!isfinite(sl.fig.load) || !isfinite(sl.fig.time_lost) || !sl.fig.ns) {
			snprintf(why, why_len, "slot %u's figures are not numbers", i + 1);
			turns_free(t);
			return -1;
		}
		turns_add(t, &sl);
	}
	return 0;
}
