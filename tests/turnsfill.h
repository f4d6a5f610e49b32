/* The unit tests' turns: a run of cycles of two arms, filled as a test asks. */
#ifndef ZC_TURNSFILL_H
#define ZC_TURNSFILL_H

#include <string.h>

#include "../lib/turns.h"

static const char *const two[] = { "write", "sendfile" };

/* A run of cycles, each arm a slot a cycle, arm 1's load `extra` above arm 0's. */
static void fill(struct turns *t, unsigned cycles, double base, double extra, uint64_t bytes)
{
	for (uint32_t c = 0; c < cycles; c++)
		for (unsigned a = 0; a < 2; a++) {
			/* A little noise that differs by cycle, the same for both arms. */
			double noise = 0.002 * ((c * 7) % 5);
			struct turns_slot sl = { .arm = a, .cycle = c, .at = 2 * c + a, .bytes = bytes };

			sl.fig.ns = 75000000;
			sl.fig.load = base + noise + (a ? extra : 0);
			sl.fig.time_lost = sl.fig.load / 2;
			sl.fig.kernel = sl.fig.load / 2;
			turns_add(t, &sl);
		}
}

/*
 * As fill, with a meter of the two CPUs cpus: their loads a slot 0.30 and
 * 0.10 (each with the same noise), arm 1's on the second `extra` above.
 */
static void fill_cpus(struct turns *t, unsigned cycles, const int cpus[2], double extra,
		      uint64_t bytes)
{
	t->n_cpus = 2;
	turns_set_cpus(t, cpus, 2);
	for (uint32_t c = 0; c < cycles; c++)
		for (unsigned a = 0; a < 2; a++) {
			double noise = 0.002 * ((c * 7) % 5);
			double loads[2] = { 0.30 + noise, 0.10 + noise + (a ? extra : 0) };
			struct turns_slot sl = { .arm = a, .cycle = c, .at = 2 * c + a, .bytes = bytes,
						 .cpu_load = loads };

			sl.fig.ns = 75000000;
			sl.fig.load = (loads[0] + loads[1]) / 2;
			sl.fig.time_lost = sl.fig.load / 2;
			sl.fig.kernel = sl.fig.load / 2;
			turns_add(t, &sl);
		}
}

/* A receiver's run of 20 cycles on a 2-CPU host, arm 1 `extra` above arm 0. */
static inline void receiver_of_two(struct turns *t, double extra)
{
	turns_init(t, TURNS_RECEIVER, two, 2, 100);
	t->n_cpus = 2;
	fill(t, 20, 0.20, extra, 30 << 20);
}

/*
 * Both ends of one run: a sender of 2 CPUs, 1 MiB a slot; a receiver of 4
 * that counted half the bytes in its windows (its KiB cost twice as much),
 * sendfile's receiver 0.005 above write's, and missing slot 3.
 */
static inline void both_ends(struct turns *s, struct turns *r, struct turns *both)
{
	turns_init(s, TURNS_SENDER, two, 2, 100);
	turns_init(r, TURNS_RECEIVER, two, 2, 100);
	s->n_cpus = 2;
	r->n_cpus = 4;
	fill(s, 10, 0.10, 0.0, 1 << 20);
	fill(r, 10, 0.05, 0.005, 1 << 19);
	memmove(&r->slots[3], &r->slots[4], (r->n_slots - 4) * sizeof(r->slots[0]));
	r->n_slots--;
	turns_sum(s, r, both);
}

#endif
