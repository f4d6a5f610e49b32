/*
 * tcpinfo: what the kernel's TCP_INFO says held a connection back:
 * retransmissions, the smoothed RTT and its variance, the congestion window,
 * the delivery rate, and of the time spent sending data (busy) how much was
 * limited by the peer's receive window or by the send buffer (Linux 4.10 and
 * later; bytes retransmitted, 4.19). A field an older kernel does not give is
 * said to be missing, never given as 0.
 */
#ifndef ZC_TCPINFO_H
#define ZC_TCPINFO_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"

struct tcpinfo {
	int have;		/* TCP_INFO was read */
	int have_limits;	/* busy, rwnd_limited and sndbuf_limited came with it */
	int have_bytes_retrans;
	uint64_t total_retrans;	/* segments retransmitted over the connection */
	uint64_t bytes_retrans;
	uint32_t srtt_us, rttvar_us, snd_cwnd, snd_mss;
	uint64_t delivery_rate;	/* bytes a second, the kernel's latest estimate */
	uint64_t busy_us, rwnd_limited_us, sndbuf_limited_us;
};

/* TCP_INFO of a TCP socket: 0, or -1 (ti->have 0) if the kernel gave none. */
int tcpinfo_read(int fd, struct tcpinfo *ti);
/* The share of the busy time limited by the receive window, or the send buffer: percent, or -1. */
double tcpinfo_rwnd_pct(const struct tcpinfo *ti);
double tcpinfo_sndbuf_pct(const struct tcpinfo *ti);

/*
 * What held a stream of run_ns back, by its TCP_INFO: a limit (the
 * receiver's window, the send buffer) over more than TCPINFO_HELD_PCT of its
 * busy time; else, paced at the rate asked (paced: -R, reached), the pacing;
 * else, busy (data to send) less than TCPINFO_APP_PCT of the run, the sender
 * itself; else the congestion window. One phrase, in buf; NULL where
 * TCP_INFO has no busy time to judge by.
 */
#define TCPINFO_HELD_PCT 20
#define TCPINFO_APP_PCT 50
const char *tcpinfo_held_back(const struct tcpinfo *ti, uint64_t run_ns, int paced, char *buf,
			      size_t len);
/* -J: the object "tcp_info" (null if none was read), missing fields null. */
void tcpinfo_json(struct json *j, const struct tcpinfo *ti);
/* -I: a line of its own, "PREFIXtcp_info: retrans ... , sndbuf-limited N%". */
void tcpinfo_print(FILE *out, const char *prefix, const struct tcpinfo *ti);

#endif
