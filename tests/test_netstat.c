/* The host's ACK and corking counters: parsed by name from /proc/net/netstat's text, deltas, -J and words. */
#include <stdio.h>
#include <string.h>

#include "../lib/netstat.h"
#include "check.h"

static FILE *text(const char *s)
{
	return fmemopen((void *)s, strlen(s), "r");
}

/* Each counter is the value in its name's place, whatever the order and whatever else is there. */
static void counters_are_read_by_name(void)
{
	FILE *f = text("TcpExt: SyncookiesSent TCPPureAcks DelayedACKs DelayedACKLocked TCPAutoCorking\n"
		       "TcpExt: 7 123456789012 45 6 789\n"
		       "IpExt: InNoRoutes TCPAutoCorking\n"
		       "IpExt: 1 99999\n");
	struct netstat n;

	netstat_parse(f, &n);
	fclose(f);
	CHECK(n.ok);
	CHECK(n.v[NETSTAT_PURE_ACKS] == 123456789012ULL);
	CHECK(n.v[NETSTAT_DELAYED_ACKS] == 45);
	CHECK(n.v[NETSTAT_DELAYED_ACKS_LOCKED] == 6);
	CHECK(n.v[NETSTAT_AUTOCORKING] == 789);
}

/* A kernel without one of them: not ok, and -J says null, never 0. */
static void a_missing_counter_is_said(void)
{
	FILE *f = text("TcpExt: TCPPureAcks DelayedACKs DelayedACKLocked\nTcpExt: 1 2 3\n");
	struct netstat n, d;
	char out[256] = "";
	FILE *o = fmemopen(out, sizeof(out), "w");
	struct json j;

	netstat_parse(f, &n);
	fclose(f);
	CHECK(!n.ok);
	netstat_delta(&n, &n, &d);
	CHECK(!d.ok);
	json_begin(&j, o);
	netstat_json(&j, &d);
	json_end(&j);
	fclose(o);
	CHECK(strstr(out, "\"netstat\":null") != NULL);
}

/* The window's counts, as -J and the words give them. */
static void a_delta_in_json_and_words(void)
{
	struct netstat a = { .ok = 1, .v = { 10, 20, 1, 30 } }, b = { .ok = 1, .v = { 15, 120, 3, 31 } }, d;
	char out[512] = "";
	FILE *o = fmemopen(out, sizeof(out), "w");
	struct json j;

	netstat_delta(&a, &b, &d);
	CHECK(d.ok && d.v[NETSTAT_AUTOCORKING] == 5 && d.v[NETSTAT_DELAYED_ACKS] == 100);
	json_begin(&j, o);
	netstat_json(&j, &d);
	json_end(&j);
	netstat_print(o, &d);
	fclose(o);
	CHECK(strstr(out, "\"netstat\":{\"autocorking\":5,\"delayed_acks\":100,\"delayed_acks_locked\":2,\"pure_acks\":1}") !=
	      NULL);
	CHECK(strstr(out, "host: autocorked 5, delayed ACKs 100 (2 locked), pure ACKs received 1") != NULL);
}

/* This host's file has them all (Linux 3.14 and later). */
static void this_host_has_them(void)
{
	struct netstat n;

	netstat_read(&n);
	CHECK(n.ok);
}

int main(void)
{
	RUN(counters_are_read_by_name);
	RUN(a_missing_counter_is_said);
	RUN(a_delta_in_json_and_words);
	RUN(this_host_has_them);
	return CHECK_EXIT();
}
