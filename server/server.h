/*
 * server/: the rest of zcs, below zcs.c (its options and main), which uses
 * this folder and is used by none of it: the settings and what the two
 * servers share, tcpserve.c (TCP: a child a connection) and udpserve.c
 * (-u: one process for every sender's datagrams), both using interval.c
 * (the -t intervals).
 */
#ifndef ZC_SERVER_H
#define ZC_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hostmeter.h"
#include "lib/json.h"
#include "lib/net.h"
#include "lib/schedule.h"
#include "lib/tcpinfo.h"
#include "lib/turnsout.h"
#include "lib/turnswire.h"
#include "rx/rx.h"

struct settings {
	int debug;
	int json;		/* -J */
	char unit;		/* -f: the rates' unit (lib/units) */
	const struct recv_mode *arms[RX_MAX_ARMS];	/* -m A,B,...: the modes that take turns */
	unsigned n_arms;		/* 1: no turns */
	const char *mode_name;		/* as -m gave it: "read", "read,trunc" */
	int maps;			/* an arm takes data by mapping it */
	long slot_ms;			/* -A: each arm's slot */
	const char *addr;
	long bufsize;
	int cpu;
	struct net_sockopts sockopts;
	long rcvlowat;
	int port;
	long report_secs;
	int measure_cpu;	/* -c */
	int calibrate_only;	/* -C */
	int n_cpus;		/* -N */
	struct cpu_list soak_set;	/* -U: the meter's CPUs, where it has any */
	long tare_ms;		/* -T: the tare; with -C, each period of the calibration */
	long max_conns;		/* -L */
	long idle_secs;		/* -W */
	int datagram;		/* -u */
	int tcp_line;		/* -I: TCP_INFO's line after each summary */
	const char *events_path;	/* -e: the slot events' file; NULL */
	FILE *events;			/* -e's, opened */
	const char *mode_arg;	/* -m as given, and -T: read once every option is */
	const char *tare_arg;
};

/* One -t interval of a connection (or -u's sender), kept for -J. */
struct interval {
	uint64_t start_ns, end_ns;	/* from accept() (the first datagram) */
	uint64_t bytes;
	int has_tcp;		/* a connection's: TCP_INFO at its end */
	struct tcpinfo tcp;
};

/* The -t intervals kept for -J. */
struct intervals {
	struct interval *list;
	size_t n;
};

/* interval.c: */

/*
 * An interval's rate: printed, or with -J kept for the summary. Printed, it
 * is 2001's line ("N kbytes/sec"); while other connections or senders are
 * being served too, and from then on, the line begins with the peer it
 * counts ("127.0.0.1:40312: N kbytes/sec"), tag here, else NULL. A
 * connection's (tcp, else NULL) has TCP_INFO at the interval's end: with -I
 * its line after the rate's, with -J in the interval's object.
 */
void report_interval(const struct settings *s, struct intervals *iv, uint64_t from_ns,
		     uint64_t to_ns, uint64_t bytes, const char *tag, const struct tcpinfo *tcp);
/* -J: the intervals kept, as an array member. */
void json_intervals(struct json *j, const struct intervals *iv);

/*
 * The turns at the receiver, one engine with two sources of slot edges: zcs
 * -m A,B,... (its receive modes taking turns by slots of its own clock,
 * lib/schedule, each measured by the meter past its guard as it ends), or
 * zcc's turns followed (zcc -m A,B,... -E: the meter's samples along the
 * stream, each with the bytes come by then, given after the stream to the
 * sender's slots by their offsets). Either way each slot's figures go to
 * one struct turns, printed, written to -J's "turns" and compared alike.
 */

/* The meter's samples along a followed stream, at most one a FOLLOW_PERIOD_MS. */
#define FOLLOW_PERIOD_MS 2

/* followslots.c: the followed source, zcc's slots by their offsets. */
struct follow {
	struct meter *m;	/* -c's; NULL: the bytes and the time alone */
	int fd;			/* the connection: its receive queue is counted as come */
	int spoiled;		/* a sample failed: no load figures */
	uint64_t period_ns;
	struct soak_sample *s;	/* the samples, their arrays in steps and cpu_ns */
	uint64_t *bytes;	/* the bytes come at each: read, and queued to be read */
	uint64_t *queued;	/* of them, queued */
	uint64_t *steps, *cpu_ns;
	size_t n, cap;
	size_t taken;		/* samples taken, thinned ones too */
	uint64_t cost_ns;	/* the CPU time they took */
	struct turns_slot *all;	/* every slot of the table, measured or not (the answer) */
	double *loads;		/* and each one's load on each of the meter's CPUs */
	int *measured;
	size_t n_table;
};

/* The samples' store, with the meter m (may be NULL), for fd; the first sample now. */
void follow_start(struct follow *f, struct meter *m, int fd);
/*
 * After a receive: a sample with the bytes read so far and those queued, if
 * a period has passed since the last (or force).
 */
void follow_sample(struct follow *f, uint64_t bytes, int force);
/* The slot table: each slot's figures from the samples, into result. 0, or -1 with why. */
int follow_slots(struct follow *f, struct turns *result, const unsigned char *table, size_t len,
		 char *why, size_t why_len);
/* The answer to zcc: the figures of every slot of the table. */
void follow_answer(const struct follow *f, const struct turns *result, int fd, const char *peer,
		   int debug);
/* What the samples were and cost: their line, or their members of -J's "turns". */
void follow_print_samples(const struct follow *f, FILE *out);
void follow_json_samples(const struct follow *f, struct json *j);
void follow_free(struct follow *f);

/* rxturns.c: the engine. */

enum rxturns_edges {
	RXTURNS_OFF,		/* no turns */
	RXTURNS_OWN,		/* zcs -m A,B,...: its own clock's */
	RXTURNS_FOLLOWED,	/* zcc's slot table, after the stream */
};

struct rxturns {
	enum rxturns_edges edges;
	const char *peer;
	int debug;
	struct turns result;	/* the slots as this end measured them */
	int measured;		/* result holds slots: zcs's own, or zcc's table came and made sense */
	/* RXTURNS_OWN: */
	struct receiver *r;
	FILE *events;		/* -e: the slot events (lib/schedule); NULL */
	struct schedule sched;
	uint64_t bytes_at_guard;	/* the connection's bytes as the slot's measure began */
	/* RXTURNS_FOLLOWED: */
	struct follow follow;
};

/* zcs -m A,B,...: from the first data on, the first slot now; m, the meter (NULL: the time and bytes alone). */
void rxturns_own(struct rxturns *t, const struct settings *s, struct meter *m,
		 struct receiver *r);
/* zcc's turns followed: from the opening exchange on, the samples along the stream of r's. */
void rxturns_follow(struct rxturns *t, const struct settings *s, struct meter *m,
		    const struct receiver *r);
/* After a receive, bytes the connection's so far: a slot's guard or end if due, or a sample. */
void rxturns_received(struct rxturns *t, uint64_t bytes);
/* The stream ended: the last sample, or the slot it cut short is not measured. */
void rxturns_end(struct rxturns *t, uint64_t bytes);
/*
 * The slot table that came after the stream (len bytes at table), and the
 * answer to it on fd: each slot's figures, or with zcs's own turns a
 * decline. 0, or -1 with why: not a table, counted as bytes after the end.
 */
int rxturns_table(struct rxturns *t, int fd, const unsigned char *table, size_t len, char *why,
		  size_t why_len);
/* The arms' lines and comparisons, and what the slots measured and the samples cost. */
void rxturns_print(const struct rxturns *t, FILE *out, char unit, uint64_t bytes);
/* -J's "turns" object, null where there were none. */
void rxturns_json(const struct rxturns *t, struct json *j);
void rxturns_free(struct rxturns *t);

/* tcpserve.c: */

/*
 * Every connection to the listening socket lfd, each in a child of its own,
 * at most -L at once, its summary when it ends; never returns.
 */
void serve_connections(int lfd, const struct settings *s, struct hostmeter *hm)
	__attribute__((noreturn));

/* udpserve.c: */

/*
 * -u: the datagrams of every sender that comes to the bound socket fd, each
 * sender's summary when its END comes or it has sent nothing for -W; never
 * returns.
 */
void serve_datagrams(int fd, const struct settings *s, struct hostmeter *hm)
	__attribute__((noreturn));

#endif
