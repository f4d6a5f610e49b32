/*
 * soak: the cycle-soak meter behind cyclesoak and zcc -c. One soaker per CPU,
 * pinned, at idle priority, all in one session group at nice 19, counting
 * fixed steps of work in shared memory. A sample reads every soaker's step
 * count and the CPU time the kernel gave it, and /proc/stat (procstat); the
 * load is how far the soakers' rate falls below an idle reference, the
 * calibration file or a tare taken just before (sampling). Failures return
 * -1 with a one-line reason in err.
 */
#ifndef ZC_SOAK_H
#define ZC_SOAK_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "counts.h"
#include "cpu.h"
#include "hostlock.h"
#include "procstat.h"

/* soak_open's return when more CPUs are asked for than the affinity mask holds. */
#define SOAK_TOO_MANY_CPUS (-2)


struct soak_shared;

struct soak {
	int n_cpus;
	int *cpus;
	pid_t *pids;		/* 0 once reaped */
	clockid_t *clocks;	/* each soaker's CPU-time clock */
	struct soak_shared *shared;
	int lock_fd;		/* SOAK_LOCK_FILE, locked while the soakers run; -1 */
	int debug;
	char err[384];
};

/* A reading of every soaker, and when it was taken (CLOCK_MONOTONIC). */
struct soak_sample {
	uint64_t ns;
	uint64_t *steps;	/* n_cpus entries */
	uint64_t *cpu_ns;	/* each soaker's CPU time so far */
	/* /proc/stat of the soaked CPUs, in ns: busy (user, nice, system, irq,
	 * softirq) and all (busy, idle, iowait, steal); all is 0 if unreadable. */
	uint64_t stat_busy_ns, stat_all_ns;
	struct procstat_cpu *stat;	/* each soaked CPU's line */
};

/*
 * Choose the CPUs: the first n_cpus of this process's affinity mask, or all of
 * them when n_cpus is 0, or the CPUs of set where it has any (-U). No soaker
 * runs yet. Returns 0, -1, or SOAK_TOO_MANY_CPUS (err says how many there
 * are, or which of set's this process may not run on).
 */
int soak_open(struct soak *m, int n_cpus, const struct cpu_list *set, int debug);
/* Print "using N CPUs", as cyclesoak and zcc -C announce it. */
void soak_announce(const struct soak *m);
/*
 * Take the host's meter lock, start a soaker on each CPU and wait until all
 * are counting. -1 if another meter holds the lock, err naming its pid.
 */
int soak_start(struct soak *m);
/* Kill and reap every soaker; async-signal-safe, so a signal handler may stop the meter. */
void soak_kill(struct soak *m);
/* Kill and reap every soaker and free what open and start took. Safe to call twice. */
void soak_close(struct soak *m);

int soak_sample_init(const struct soak *m, struct soak_sample *smp);
void soak_sample_free(struct soak_sample *smp);
/* One sample's readings into another's arrays, both of n_cpus. */
void soak_sample_copy(struct soak_sample *dst, const struct soak_sample *src, int n_cpus);
/* Read every soaker; -1 if one has died or been stopped, which spoils the count. */
int soak_take(struct soak *m, struct soak_sample *smp);

#endif
