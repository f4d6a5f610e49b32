/*
 * turns: what the slots of arms taking turns in one stream say, arm against
 * arm, at whichever end measured them. A slot is one arm's turn, measured
 * past its guard: its bytes, its time and the meter's figures over it. Each
 * arm is set against the cheapest block of cycles by block (paired), and
 * the verdict says it costs more, the same, or is not resolved.
 *
 * This is the statistics; turnsout has their lines and -J's object, and
 * turnswire the slot table and the answer the two ends exchange.
 */
#ifndef ZC_TURNS_H
#define ZC_TURNS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "paired.h"
#include "sampling.h"

/* The most arms a stream's turns may have (each TCP mode once, and one again). */
#define TURNS_MAX_ARMS 8
#define TURNS_NAME_BYTES 40

/* -A: a slot's length by default, and the bounds on it, in ms (zcc's and zcs's). */
#define TURNS_DEFAULT_SLOT_MS 100
#define TURNS_MIN_SLOT_MS 20
#define TURNS_MAX_SLOT_MS 60000

/* What one slot measured, from its guard's end to its end. */
struct turns_slot {
	unsigned arm;
	uint32_t cycle;
	uint32_t at;		/* its place in the slot table: the sender's order */
	uint64_t bytes;
	uint64_t queued;	/* the sender's: its send queue's bytes as it began (SIOCOUTQ) */
	struct soak_figures fig;	/* fig.ns always; the load's figures when metered */
	/* As it is added: each of the turns' CPUs' load (NULL: none); kept by turns_add. */
	const double *cpu_load;
};

/* Which end's figures a turns holds: the line's prefix and the sum's difference. */
enum turns_end { TURNS_SENDER, TURNS_RECEIVER, TURNS_BOTH };

struct turns {
	enum turns_end end;
	unsigned n_arms;
	char arm[TURNS_MAX_ARMS][TURNS_NAME_BYTES];	/* as lines name it: its mode, #N if twice */
	char mode[TURNS_MAX_ARMS][TURNS_NAME_BYTES];
	long slot_ms;
	int n_cpus;		/* the meter's CPUs; 0 without a meter (or once it failed) */
	int notsent_lowat;	/* the sender's: TCP_NOTSENT_LOWAT, where it held the queue; 0 */
	struct turns_slot *slots;
	size_t n_slots, cap_slots;
	/* The meter's CPUs, each slot's load on each (n_cpu a slot; NAN where none): none, n_cpu 0. */
	int n_cpu;
	int *cpu;
	double *cpu_load;
};

/* A CPU's difference between two arms is "the same" within this many points of it. */
#define TURNS_CPU_SAME_POINTS 1.0

/* No slots yet; arms named for their modes, "#N" after those named twice. */
void turns_init(struct turns *t, enum turns_end end, const char *const *modes, unsigned n_arms,
		long slot_ms);
/* The same, the arms named as names says (zcc -X: "b=64k"); names NULL: as turns_init. */
void turns_init_named(struct turns *t, enum turns_end end, const char *const *modes,
		      const char *const *names, unsigned n_arms, long slot_ms);
/* One more slot, kept, and its load on each CPU where the turns has CPUs and sl gives them. */
void turns_add(struct turns *t, const struct turns_slot *sl);
void turns_free(struct turns *t);
/* The CPUs each slot gives a load on: cpus[0..n), the meter's, in its order. */
void turns_set_cpus(struct turns *t, const int *cpus, int n);
/* Slot i's load on each of the turns' CPUs. */
const double *turns_slot_loads(const struct turns *t, size_t i);

/*
 * Both ends' slots, the same slots by their place (each end's from its own
 * meter), into one whose demand is the two ends' sum: what a KiB costs the
 * sending host and the receiving host together. Slots either end did not
 * measure are left out. Its lines give the demand alone.
 */
void turns_sum(const struct turns *sender, const struct turns *receiver, struct turns *both);

/* The median of v[0..n) (the upper of the middle two), 0 for none; v is left as it was. */
uint64_t turns_median(const uint64_t *v, size_t n);

/* The bytes the slots measured, every arm's. */
uint64_t turns_bytes(const struct turns *t);
/*
 * The soakers' difference d and the kernel's view of it k both leave out 0,
 * on opposite sides: the meter says an arm costs more, the kernel's
 * accounting that it costs less (or the other way).
 */
int turns_views_disagree(const struct paired *d, const struct paired *k);
/* No slots yet, the arms those of like, by its modes and names: the other end's, or the sum's. */
void turns_init_like(struct turns *t, enum turns_end end, const struct turns *like);

/* One arm's slots, over the run or a block of cycles, summed. */
struct turns_arm_sum {
	size_t slots;
	uint64_t ns, bytes;
	double load_ns, lost_ns, kernel_ns, kernel_weight_ns;
};

/* Which of the load's parts a difference in demand is in, where it differs. */
enum turns_carrier { TURNS_CARRIED_BY_NONE, TURNS_CARRIED_BY_KERNEL, TURNS_CARRIED_BY_SLOWDOWN };

/*
 * Arm x against arm r, block by block: the demand's change in %, by the
 * soakers and by the kernel's view; the load's, the time lost's and the
 * kernel's view's in points.
 */
struct turns_comparison {
	unsigned x, r;
	struct paired demand_pct, kernel_demand_pct, load_points, lost_points, kernel_points;
	enum paired_verdict verdict;
	enum turns_carrier carried_by;
	/* Each of the turns' CPUs: its load's difference in points of it, and the verdict (malloc'd). */
	struct paired *cpu_points;
	enum paired_verdict *cpu_verdict;
	/* Each CPU's slots of the two arms at its ceiling (SOAK_CEILING), left out of its comparison. */
	size_t *cpu_ceiling;
};

/* An arm's slots over the whole run, summed, and what they say. */
void turns_sum_arm(const struct turns *t, unsigned arm, struct turns_arm_sum *s);
double turns_arm_load(const struct turns_arm_sum *s);
double turns_arm_lost(const struct turns_arm_sum *s);
/* The kernel's view; NAN where no slot had one. */
double turns_arm_kernel(const struct turns_arm_sum *s);
/* CPU microseconds a KiB by a load (the soakers' or the kernel's view); by the soakers'. */
double turns_demand_of(const struct turns *t, const struct turns_arm_sum *s, double load);
double turns_arm_demand(const struct turns *t, const struct turns_arm_sum *s);
/* A meter measured the slots: there are figures to compare. */
int turns_metered(const struct turns *t);
/* The arm with the least demand over the whole run: the others are set against it. */
unsigned turns_cheapest(const struct turns *t);
/* The cycles a block of a comparison holds: one, or as few more as keep the blocks within PAIRED_MAX_N. */
uint32_t turns_block_cycles(const struct turns *t);
/* Arm x against arm r, block by block, into c; turns_compare_free() lets its CPUs' go. */
void turns_compare(const struct turns *t, unsigned x, unsigned r, struct turns_comparison *c);
void turns_compare_free(struct turns_comparison *c);
/* Arm i's load on the turns' CPU k over the whole run, a share of it; NAN where none. */
double turns_arm_cpu_load(const struct turns *t, unsigned i, int k);

#endif
