/*
 * netstat: the host's TCP counters that say how its ACKs and small writes
 * went over a window (this network namespace's /proc/net/netstat TcpExt
 * rows): writes TCP held back to join the next (TCPAutoCorking), delayed
 * ACKs sent (DelayedACKs), those the socket's owner held up
 * (DelayedACKLocked), and pure ACKs taken in (TCPPureAcks). They count the
 * whole host, every connection on it: a run's figures are its own only
 * where nothing else sends.
 */
#ifndef ZC_NETSTAT_H
#define ZC_NETSTAT_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"

enum netstat_counter {
	NETSTAT_AUTOCORKING,
	NETSTAT_DELAYED_ACKS,
	NETSTAT_DELAYED_ACKS_LOCKED,
	NETSTAT_PURE_ACKS,
	NETSTAT_N
};

struct netstat {
	int ok;			/* every counter was found */
	uint64_t v[NETSTAT_N];
};

/* The counters in /proc/net/netstat's text; ok 0 if one is missing. */
void netstat_parse(FILE *f, struct netstat *n);
/* The same of /proc/net/netstat now. */
void netstat_read(struct netstat *n);
/* b less a, counter by counter, into d (ok only if both were). */
void netstat_delta(const struct netstat *a, const struct netstat *b, struct netstat *d);
/*
 * -J: the object "netstat" (autocorking, delayed_acks, delayed_acks_locked,
 * pure_acks), or null where the counters could not be read.
 */
void netstat_json(struct json *j, const struct netstat *d);
/* The counters in words, "autocorked A, delayed ACKs D (L locked), pure ACKs P in", or "unread". */
void netstat_print(FILE *out, const struct netstat *d);

#endif
