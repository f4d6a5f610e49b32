/* TCP_INFO read from a connection on loopback, its shares, its -J and -I forms. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/tcpinfo.h"
#include "check.h"

/* A connected pair on 127.0.0.1, in *a (the connecting end) and *b. */
static int pair(int *a, int *b)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) < 0)
		return -1;
	*a = socket(AF_INET, SOCK_STREAM, 0);
	if (*a < 0 || connect(*a, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return -1;
	*b = accept(l, NULL, NULL);
	close(l);
	return *b < 0 ? -1 : 0;
}

/* After data has gone and come back acknowledged: an RTT, a window, the limits. */
static void a_connection_that_sent_has_its_figures(void)
{
	static char buf[1 << 20];
	struct tcpinfo ti;
	int a = -1, b = -1;
	ssize_t got = 0;

	CHECK(pair(&a, &b) == 0);
	CHECK(write(a, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	while (got < (ssize_t)sizeof(buf)) {
		ssize_t n = read(b, buf, sizeof(buf));

		if (n <= 0)
			break;
		got += n;
	}
	usleep(20000);
	CHECK(tcpinfo_read(a, &ti) == 0);
	CHECK(ti.have && ti.have_limits);
	CHECK(ti.srtt_us > 0);
	CHECK(ti.snd_cwnd > 0 && ti.snd_mss > 0);
	/*
	 * Over an idle loopback nothing is resent; beside other work a tail
	 * loss probe may be, and counts (once under SANITIZE=1, the unit
	 * programs side by side): the two counts agree, and no more was resent
	 * than was sent.
	 */
	CHECK(ti.total_retrans <= sizeof(buf) / ti.snd_mss + 1);
	CHECK(!ti.have_bytes_retrans || ((ti.total_retrans == 0) == (ti.bytes_retrans == 0) &&
					 ti.bytes_retrans <= ti.total_retrans * ti.snd_mss));
	/* The busy time counts in jiffies: a 1 MiB write over loopback may read 0, and then no share. */
	CHECK(ti.busy_us > 0 ? tcpinfo_rwnd_pct(&ti) >= 0 && tcpinfo_rwnd_pct(&ti) <= 100
			     : tcpinfo_rwnd_pct(&ti) < 0);
	close(a);
	close(b);
}

/* A socket that is not TCP gives none, and -J and -I say so. */
static void no_tcp_info_is_said_not_zeroed(void)
{
	struct tcpinfo ti;
	struct json j;
	char line[256] = "", obj[256] = "";
	FILE *f = fmemopen(line, sizeof(line), "w"), *o = fmemopen(obj, sizeof(obj), "w");
	int u = socket(AF_INET, SOCK_DGRAM, 0);

	CHECK(tcpinfo_read(u, &ti) == -1);
	CHECK(!ti.have);
	CHECK(tcpinfo_rwnd_pct(&ti) < 0);
	tcpinfo_print(f, "stream 1: ", &ti);
	fclose(f);
	CHECK_STR(line, "stream 1: tcp_info: the kernel gave none\n");
	json_begin(&j, o);
	tcpinfo_json(&j, &ti);
	json_end(&j);
	fclose(o);
	CHECK(strstr(obj, "\"tcp_info\":null") != NULL);
	close(u);
}

/* The shares of the busy time, and the line that gives them. */
static void the_shares_are_of_the_busy_time(void)
{
	struct tcpinfo ti = { .have = 1, .have_limits = 1, .have_bytes_retrans = 1, .total_retrans = 3,
			      .bytes_retrans = 4500, .srtt_us = 40, .rttvar_us = 10, .snd_cwnd = 10,
			      .snd_mss = 65483, .delivery_rate = 2500000000ULL, .busy_us = 2000000,
			      .rwnd_limited_us = 1500000, .sndbuf_limited_us = 100000 };
	char line[512] = "";
	FILE *f = fmemopen(line, sizeof(line), "w");

	CHECK(tcpinfo_rwnd_pct(&ti) == 75.0);
	CHECK(tcpinfo_sndbuf_pct(&ti) == 5.0);
	tcpinfo_print(f, "", &ti);
	fclose(f);
	CHECK_STR(line, "tcp_info: retrans 3 segments 4500 bytes, rtt 40 us (var 10), cwnd 10 x 65483 "
		  "bytes, delivery 2500.0 MB/s (its last sample), busy 2.000 s: rwnd-limited 75.0%, sndbuf-limited 5.0%\n");
}

int main(void)
{
	RUN(a_connection_that_sent_has_its_figures);
	RUN(no_tcp_info_is_said_not_zeroed);
	RUN(the_shares_are_of_the_busy_time);
	return CHECK_EXIT();
}
