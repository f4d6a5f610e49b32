/*
 * limit: what limited a flow, at one end, in one line: a CPU at its
 * ceiling there (which, and who used it: the program, softirq, another
 * task), else what TCP_INFO says held the sending back (the receiver's
 * window, the send buffer, the pace asked), else nothing found. From the
 * meter's CPUs and the TCP_INFO the run already has.
 */
#ifndef ZC_LIMIT_H
#define ZC_LIMIT_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "sampling.h"
#include "tcpinfo.h"

/* A CPU this busy over the window is at its ceiling. */
#define LIMIT_CEILING 0.95

enum limit_kind { LIMIT_NONE, LIMIT_CPU, LIMIT_RWND, LIMIT_SNDBUF, LIMIT_PACE };

struct limit {
	enum limit_kind kind;
	const char *end;	/* "sender" or "receiver": the end that looked */
	int cpu;		/* LIMIT_CPU: which, and how busy (a share of it) */
	double busy;
	const char *used_by;	/* "the program", "softirq" or "another task" */
	double used;		/* its share of the CPU */
	double pct;		/* LIMIT_RWND, LIMIT_SNDBUF: the share of the busy time */
	int metered;		/* the CPUs were looked at */
	char text[320];
};

/*
 * What limited the flow seen from end ("sender", "receiver"): the n_cpus
 * CPUs' figures of the window (cpus NULL: no meter), the program's own CPU
 * time over it (program_share, a share of one CPU) and the CPU it was
 * pinned to (-1: none), TCP_INFO at the sending end (NULL: none to judge
 * by) over run_ns, and whether it was paced at a rate it reached.
 */
void limit_find(struct limit *l, const char *end, const struct soak_cpu_figures *cpus, int n_cpus,
		double program_share, int pinned_cpu, const struct tcpinfo *ti, uint64_t run_ns,
		int paced);
/* "limited by: ...", a line. */
void limit_print(FILE *out, const struct limit *l);
/* -J's "limit": by, end, cpu, busy_pct, used_by, used_pct, held_pct and text; null where l is. */
void limit_json(struct json *j, const struct limit *l);

#endif
