/*
 * The window: the CPU time of its process or of its children, from a
 * parent's window in a forked child, the link's and the host's counters and
 * TCP_INFO over one connection on lo, and its words and -J members.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/timing.h"
#include "../lib/window.h"
#include "check.h"

/* Spin on this CPU for ms of CPU time (user time, mostly). */
static void burn_ms(long ms)
{
	struct timespec t0, t;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static double cpu_secs(const struct window_figures *f)
{
	return f->user_secs + f->sys_secs;
}

/* The process's own CPU time over the window, not before it. */
static void its_own_cpu_time_in_the_window(void)
{
	struct window w;
	struct window_figures f;

	burn_ms(150);
	window_open(&w, &(struct window_counts){ .who = RUSAGE_SELF });
	burn_ms(60);
	window_close(&w, 1, -1, &f);
	CHECK(cpu_secs(&f) >= 0.05);
	CHECK(cpu_secs(&f) < 0.14);
	CHECK(!f.linked);
	CHECK(!f.host.ok);
	CHECK(!f.tcp.have);
}

/* -P's total: the children's, reaped in the window. */
static void the_childrens_cpu_time(void)
{
	struct window w;
	struct window_figures f;
	pid_t pid;

	window_open(&w, &(struct window_counts){ .who = RUSAGE_CHILDREN });
	pid = fork();
	if (pid == 0) {
		burn_ms(60);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, NULL, 0) == pid);
	window_close(&w, 1, -1, &f);
	CHECK(cpu_secs(&f) >= 0.05);
}

/* zcs: a window opened in the parent at accept() counts the child's CPU time from its start, never below 0. */
static void a_forked_child_counts_its_own_from_zero(void)
{
	struct window w;
	int p[2];
	double got[2] = { -1, -1 };
	pid_t pid;

	CHECK(pipe(p) == 0);
	burn_ms(150);
	window_open(&w, &(struct window_counts){ .who = RUSAGE_SELF });
	pid = fork();
	if (pid == 0) {
		struct window_figures f;
		double out[2];

		window_forked(&w);
		burn_ms(40);
		window_close(&w, 1, -1, &f);
		out[0] = cpu_secs(&f);
		out[1] = f.user_secs < 0 || f.sys_secs < 0 ? -1 : 0;
		_exit(write(p[1], out, sizeof(out)) == sizeof(out) ? 0 : 1);
	}
	close(p[1]);
	CHECK(pid > 0 && read(p[0], got, sizeof(got)) == sizeof(got));
	CHECK(waitpid(pid, NULL, 0) == pid);
	close(p[0]);
	CHECK(got[0] >= 0.03);
	CHECK(got[0] < 0.14);
	CHECK(got[1] == 0);
}

/* A connected pair of TCP sockets on lo: *lfd listens, fd[0] connected to fd[1]. */
static int tcp_pair(int fd[2])
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, len) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
		return -1;
	fd[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (fd[0] < 0 || connect(fd[0], (struct sockaddr *)&sa, len) < 0)
		return -1;
	fd[1] = accept(lfd, NULL, NULL);
	close(lfd);
	return fd[1] < 0 ? -1 : 0;
}

/* 1 MiB over lo in the window: lo's bytes count it both ways, the host's counters are read, and TCP_INFO. */
static void a_connection_on_lo_is_counted(void)
{
	static char buf[64 << 10];
	struct window w;
	struct window_figures f;
	struct link lo;
	int fd[2];
	size_t sent = 0, got = 0;

	if (tcp_pair(fd) < 0)
		SKIP("no TCP connection on 127.0.0.1");
	CHECK(link_find(&lo, fd[0]) == 0);
	CHECK_STR(lo.ifname, "lo");
	window_open(&w, &(struct window_counts){ .who = RUSAGE_SELF, .link = &lo, .host = 1 });
	while (got < (1 << 20)) {
		ssize_t n;

		if (sent < (1 << 20) && (n = send(fd[0], buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			sent += n;
		if ((n = recv(fd[1], buf, sizeof(buf), sent < (1 << 20) ? MSG_DONTWAIT : 0)) > 0)
			got += n;
		else if (n == 0)
			break;
	}
	CHECK(got == (1 << 20));
	window_close(&w, 1, fd[0], &f);
	CHECK(f.linked);
	CHECK_STR(f.link.ifname, "lo");
	/* Every byte went out of lo and came back in, with its headers. */
	CHECK(f.link_fig.tx_bytes >= (1 << 20));
	CHECK(f.link_fig.rx_bytes >= (1 << 20));
	CHECK(f.link_fig.rx_packets > 0);
	if (access("/proc/net/netstat", R_OK) == 0)
		CHECK(f.host.ok);
	CHECK(f.tcp.have);
	CHECK(f.tcp.snd_mss > 0);
	close(fd[0]);
	close(fd[1]);
}

/* A link that was not found (ifname ""): not counted, and -J says null. */
static void no_link_is_none(void)
{
	struct window w;
	struct window_figures f;
	struct link none = { .ifname = "" };

	window_open(&w, &(struct window_counts){ .who = RUSAGE_SELF, .link = &none });
	window_close(&w, 1, -1, &f);
	CHECK(!w.linked);
	CHECK(!f.linked);
	CHECK_STR(f.link.ifname, "");
}

/* Its words on a summary line, and its -J members in the schema's order, null where not counted. */
static void its_words_and_members(void)
{
	struct window_figures f = { .user_secs = 0.25, .sys_secs = 1.5 };
	char out[1024] = "";
	FILE *o = fmemopen(out, sizeof(out), "w");
	struct json j;

	window_print_cpu(o, &f);
	window_print_link(o, &f);
	fclose(o);
	CHECK_STR(out, ", cpu 0.25u 1.50s");
	o = fmemopen(out, sizeof(out), "w");
	json_begin(&j, o);
	window_json_cpu(&j, &f);
	window_json(&j, &f, NULL, NULL, -1);
	json_end(&j);
	fclose(o);
	CHECK(strstr(out, "\"user_seconds\":0.25,\"system_seconds\":1.50,"
			  "\"meter\":null,\"cpus\":null,\"busiest\":null,\"link\":null,\"netstat\":null") != NULL);
	f.linked = 1;
	f.link = (struct link){ .ifname = "lo" };
	f.link_fig = (struct link_figures){ .rx_packets = 10, .tx_packets = 20, .rx_pps = 1000, .tx_pps = 2000 };
	o = fmemopen(out, sizeof(out), "w");
	window_print_link(o, &f);
	fclose(o);
	CHECK(strncmp(out, ", lo: rx 1000 pps, tx 2000 pps", 30) == 0);
}

int main(void)
{
	RUN(its_own_cpu_time_in_the_window);
	RUN(the_childrens_cpu_time);
	RUN(a_forked_child_counts_its_own_from_zero);
	RUN(a_connection_on_lo_is_counted);
	RUN(no_link_is_none);
	RUN(its_words_and_members);
	return CHECK_EXIT();
}
