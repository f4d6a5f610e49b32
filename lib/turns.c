#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "paired.h"
#include "timing.h"
#include "turns.h"

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
void turns_init_like(struct turns *t, enum turns_end end, const struct turns *like)
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
		if (t->n_cpu)
			t->cpu_load = realloc(t->cpu_load, t->cap_slots * t->n_cpu * sizeof(*t->cpu_load));
		if (!t->slots || (t->n_cpu && !t->cpu_load))
			err(1, "realloc");
	}
	for (int k = 0; k < t->n_cpu; k++)
		t->cpu_load[t->n_slots * t->n_cpu + k] = sl->cpu_load ? sl->cpu_load[k] : NAN;
	t->slots[t->n_slots] = *sl;
	t->slots[t->n_slots++].cpu_load = NULL;
}

void turns_free(struct turns *t)
{
	free(t->slots);
	free(t->cpu);
	free(t->cpu_load);
	memset(t, 0, sizeof(*t));
}

void turns_set_cpus(struct turns *t, const int *cpus, int n)
{
	free(t->cpu);
	free(t->cpu_load);
	t->cpu = NULL;
	t->cpu_load = NULL;
	t->n_cpu = 0;
	if (n <= 0 || t->n_slots)
		return;
	t->cpu = malloc(n * sizeof(*t->cpu));
	t->cpu_load = t->cap_slots ? malloc(t->cap_slots * n * sizeof(*t->cpu_load)) : NULL;
	if (!t->cpu || (t->cap_slots && !t->cpu_load))
		err(1, "malloc");
	memcpy(t->cpu, cpus, n * sizeof(*t->cpu));
	t->n_cpu = n;
}

const double *turns_slot_loads(const struct turns *t, size_t i)
{
	return t->n_cpu ? t->cpu_load + i * t->n_cpu : NULL;
}

double turns_arm_cpu_load(const struct turns *t, unsigned i, int k)
{
	double load_ns = 0, ns = 0;

	for (size_t s = 0; s < t->n_slots; s++) {
		double v = t->cpu_load[s * t->n_cpu + k];

		if (t->slots[s].arm != i || isnan(v))
			continue;
		load_ns += v * t->slots[s].fig.ns;
		ns += t->slots[s].fig.ns;
	}
	return ns > 0 ? load_ns / ns : NAN;
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

	turns_init_like(both, TURNS_BOTH, sender);
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


static void add_slot(struct turns_arm_sum *s, const struct turns_slot *sl)
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
void turns_sum_arm(const struct turns *t, unsigned arm, struct turns_arm_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < t->n_slots; i++)
		if (t->slots[i].arm == arm)
			add_slot(s, &t->slots[i]);
}

double turns_arm_load(const struct turns_arm_sum *s)
{
	return s->ns ? s->load_ns / s->ns : NAN;
}

double turns_arm_lost(const struct turns_arm_sum *s)
{
	return s->ns ? s->lost_ns / s->ns : NAN;
}

double turns_arm_kernel(const struct turns_arm_sum *s)
{
	return s->kernel_weight_ns ? s->kernel_ns / s->kernel_weight_ns : NAN;
}

/* CPU microseconds a KiB: a load (the soakers' or the kernel's view), times the CPUs, over the slots' time. */
double turns_demand_of(const struct turns *t, const struct turns_arm_sum *s, double load)
{
	return s->bytes ? load * t->n_cpus * (s->ns / 1e3) / (s->bytes / 1024.0) : NAN;
}

double turns_arm_demand(const struct turns *t, const struct turns_arm_sum *s)
{
	return turns_demand_of(t, s, turns_arm_load(s));
}

int turns_metered(const struct turns *t)
{
	return t->n_cpus > 0 && t->n_slots > 0;
}

/* The arm with the least demand over the whole run: the others are set against it. */
unsigned turns_cheapest(const struct turns *t)
{
	unsigned best = 0;
	double best_d = INFINITY;
	struct turns_arm_sum s;

	for (unsigned i = 0; i < t->n_arms; i++) {
		turns_sum_arm(t, i, &s);
		if (turns_arm_demand(t, &s) < best_d) {
			best_d = turns_arm_demand(t, &s);
			best = i;
		}
	}
	return best;
}



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

uint32_t turns_block_cycles(const struct turns *t)
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
static enum turns_carrier carrier_of(const struct turns_comparison *c)
{
	const struct paired *d = &c->demand_pct, *k = &c->kernel_demand_pct;
	int k_moved = paired_verdict(k, 0) == PAIRED_DIFFERS && (k->estimate > 0) == (d->estimate > 0);

	if (c->verdict != PAIRED_DIFFERS)
		return TURNS_CARRIED_BY_NONE;
	return k_moved && fabs(k->estimate) >= fabs(d->estimate) / 2 ? TURNS_CARRIED_BY_KERNEL
								 : TURNS_CARRIED_BY_SLOWDOWN;
}

/*
 * Each CPU's load, arm x against arm r block by block, in points of that
 * CPU: each block's load on it, a slot's weighed by its time, as the whole
 * host's. A slot whose soaker on that CPU made no step (the CPU at its
 * ceiling) says nothing of a difference there, and is left out, counted:
 * every slot so, and the CPU is not resolved (it read "the same within
 * +-0.00", the same full load in every slot).
 */
static void compare_cpus(const struct turns *t, unsigned x, unsigned r, uint32_t per,
			 size_t blocks, struct turns_comparison *c)
{
	double *sum = calloc(2 * blocks + 2, sizeof(double)), *ns = calloc(2 * blocks + 2, sizeof(double));
	double *diff = calloc(blocks + 1, sizeof(double));

	c->cpu_points = calloc(t->n_cpu ? t->n_cpu : 1, sizeof(*c->cpu_points));
	c->cpu_verdict = calloc(t->n_cpu ? t->n_cpu : 1, sizeof(*c->cpu_verdict));
	c->cpu_ceiling = calloc(t->n_cpu ? t->n_cpu : 1, sizeof(*c->cpu_ceiling));
	if (!sum || !ns || !diff || !c->cpu_points || !c->cpu_verdict || !c->cpu_ceiling)
		err(1, "calloc");
	for (int k = 0; k < t->n_cpu; k++) {
		size_t n = 0;

		memset(sum, 0, (2 * blocks + 2) * sizeof(double));
		memset(ns, 0, (2 * blocks + 2) * sizeof(double));
		for (size_t i = 0; i < t->n_slots; i++) {
			const struct turns_slot *sl = &t->slots[i];
			double v = t->cpu_load[i * t->n_cpu + k];
			size_t b = sl->cycle / per, at = 2 * b + (sl->arm == x);

			if (b >= blocks || (sl->arm != x && sl->arm != r) || isnan(v))
				continue;
			if (v >= SOAK_CEILING) {
				c->cpu_ceiling[k]++;
				continue;
			}
			sum[at] += v * sl->fig.ns;
			ns[at] += sl->fig.ns;
		}
		for (size_t b = 0; b < blocks; b++)
			if (ns[2 * b] > 0 && ns[2 * b + 1] > 0)
				diff[n++] = 100 * (sum[2 * b + 1] / ns[2 * b + 1] - sum[2 * b] / ns[2 * b]);
		estimate(diff, n, &c->cpu_points[k]);
		c->cpu_verdict[k] = paired_verdict(&c->cpu_points[k], TURNS_CPU_SAME_POINTS);
	}
	free(sum);
	free(ns);
	free(diff);
}

void turns_compare_free(struct turns_comparison *c)
{
	free(c->cpu_points);
	free(c->cpu_verdict);
	free(c->cpu_ceiling);
	memset(c, 0, sizeof(*c));
}

/*
 * A block's change in demand is its difference over the cheapest arm's
 * demand in the whole run: a block's own, from a slot or two, is too rough
 * to divide by (the kernel's view of a 30 ms window is a few ticks of
 * /proc/stat, and 0 now and then).
 */
void turns_compare(const struct turns *t, unsigned x, unsigned r, struct turns_comparison *c)
{
	uint32_t per = turns_block_cycles(t);
	size_t blocks = n_cycles(t) / per, n = 0, np = 0, nk = 0;
	struct turns_arm_sum all, *bx = calloc(blocks + 1, sizeof(*bx)), *br = calloc(blocks + 1, sizeof(*br));
	double d_all, k_all;
	double *pct = calloc(blocks + 1, sizeof(double)), *load = calloc(blocks + 1, sizeof(double));
	double *kern = calloc(blocks + 1, sizeof(double)), *lost = calloc(blocks + 1, sizeof(double));
	double *kpct = calloc(blocks + 1, sizeof(double));

	if (!bx || !br || !pct || !load || !kern || !lost || !kpct)
		err(1, "calloc");
	turns_sum_arm(t, r, &all);
	d_all = turns_arm_demand(t, &all);
	k_all = turns_demand_of(t, &all, turns_arm_kernel(&all));
	/* Both arms' slots into their blocks, in one pass (a partial last block left out). */
	for (size_t i = 0; i < t->n_slots; i++) {
		const struct turns_slot *sl = &t->slots[i];
		size_t b = sl->cycle / per;

		if (b < blocks && (sl->arm == x || sl->arm == r))
			add_slot(sl->arm == x ? &bx[b] : &br[b], sl);
	}
	for (size_t b = 0; b < blocks; b++) {
		const struct turns_arm_sum *sx = &bx[b], *sr = &br[b];
		double dx, dr;

		dx = turns_arm_demand(t, sx);
		dr = turns_arm_demand(t, sr);
		if (!sx->slots || !sr->slots)
			continue;
		/* A share of a demand of 0 or below (a load under the calibration) means nothing. */
		if (d_all > 0 && !isnan(dx) && !isnan(dr))
			pct[np++] = 100 * (dx - dr) / d_all;
		lost[n] = 100 * (turns_arm_lost(sx) - turns_arm_lost(sr));
		load[n++] = 100 * (turns_arm_load(sx) - turns_arm_load(sr));
		if (!isnan(turns_arm_kernel(sx)) && !isnan(turns_arm_kernel(sr)) && k_all > 0) {
			kpct[nk] = 100 * (turns_demand_of(t, sx, turns_arm_kernel(sx)) -
					  turns_demand_of(t, sr, turns_arm_kernel(sr))) / k_all;
			kern[nk++] = 100 * (turns_arm_kernel(sx) - turns_arm_kernel(sr));
		}
	}
	c->x = x;
	c->r = r;
	compare_cpus(t, x, r, per, blocks, c);
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

uint64_t turns_bytes(const struct turns *t)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < t->n_slots; i++)
		bytes += t->slots[i].bytes;
	return bytes;
}

int turns_views_disagree(const struct paired *d, const struct paired *k)
{
	return d->n && k->n && ((d->lo > 0 && k->hi < 0) || (d->hi < 0 && k->lo > 0));
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

