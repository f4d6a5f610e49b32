/*
 * zcs -c: one meter for the whole host, held by the listening zcs for as long
 * as it runs and read by every connection's child. The parent samples the
 * soakers every HOSTMETER_PERIOD_MS while it waits, into a ring, and at each
 * accept() takes the connection's tare from it: the last -T ms before the
 * connection came. The board, in memory shared with every child, says
 * whether another connection was open in a connection's tare or transfer,
 * when the soakers counted both.
 */
#ifndef ZC_HOSTMETER_H
#define ZC_HOSTMETER_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/meter.h"

#define HOSTMETER_PERIOD_MS 100

struct board {
	uint64_t accepted;	/* connections so far */
	int open;		/* connections being served */
	uint64_t last_end_ns;	/* when the latest one ended (CLOCK_MONOTONIC) */
};

/* The meter, its ring of samples, and the board. */
struct hostmeter {
	struct meter m;
	struct meter_ring ring;
	struct board *board;
	long tare_ms;		/* -T */
};

/*
 * The soakers on every CPU, for as long as zcs runs (they die with it,
 * PR_SET_PDEATHSIG), and the board; a failure ends zcs, as meter_die says.
 */
struct hostmeter *hostmeter_start(int n_cpus, const struct cpu_list *set, long tare_ms, int debug);

/* A whole tare's worth of samples, so that the first connection has one too. */
void hostmeter_warm_up(struct hostmeter *hm);

/* One more sample into the ring, or the end of zcs. */
void hostmeter_sample(struct hostmeter *hm);

/* Until lfd has a connection to accept, sampling every HOSTMETER_PERIOD_MS. */
void hostmeter_wait(struct hostmeter *hm, int lfd);

/*
 * A connection accepted, before its child is forked: its tare, and whether
 * another connection was open in it (one being served, or one that ended
 * since the tare began). *accepted_as is the board's count with it.
 */
int hostmeter_accepted(struct hostmeter *hm, uint64_t *accepted_as);

/* A connection accepted that will not be served (its fork failed). */
void hostmeter_not_served(struct hostmeter *hm);

/*
 * SIGCHLD's part, async-signal-safe: whether pid was a soaker (the next
 * sample then says one is gone); if not, a connection has ended.
 */
int hostmeter_reaped(struct hostmeter *hm, pid_t pid);

/* A connection (or -u's sender) has ended, async-signal-safe: it leaves the board. */
void hostmeter_ended(struct hostmeter *hm);

/*
 * In the child, at the peer's close: the connection's figures over the
 * window from its accept(), and *shared set if another connection came in
 * it; NULL, said on stderr for peer, when a soaker failed in it.
 */
const struct soak_figures *hostmeter_window(struct hostmeter *hm, const char *peer,
					    uint64_t accepted_as, uint64_t bytes,
					    struct soak_figures *fig, int *shared);

/*
 * zcs -u serves every sender in one process, where the meter's tare and
 * first sample would be the latest sender's: each sender keeps its own, as
 * each TCP connection's child has its own copy of the meter.
 */
struct hostmeter_span {
	struct meter_opening opening;
	uint64_t accepted_as;
};

/* A sender's first datagram: its tare and first sample, kept in span; 1 if shared (as accepted). */
int hostmeter_span_open(struct hostmeter *hm, struct hostmeter_span *span);

/*
 * Its end: its figures over its own window, as hostmeter_window gives them,
 * and its place on the board given up; span is freed.
 */
const struct soak_figures *hostmeter_span_close(struct hostmeter *hm, struct hostmeter_span *span,
						const char *peer, uint64_t bytes,
						struct soak_figures *fig, int *shared);

#endif
