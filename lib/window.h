/*
 * window: what one end of a transfer counts of its cost between two
 * moments, opened and closed as one: the CPU time of its process (or of its
 * children, -P's streams), the packets and interrupts of the link it goes
 * through, the host's ACK and corking counters, TCP_INFO at its end, and
 * zcc -c's meter's samples. zcc's stream and -P's total, zcs's connection
 * and its datagram sender each open one at their start and close it at
 * their end, and write its figures with the same words and the same -J
 * members. zcs's meter is the host's, shared by its connections
 * (server/hostmeter), and its span runs beside the window.
 */
#ifndef ZC_WINDOW_H
#define ZC_WINDOW_H

#include <stdio.h>
#include <sys/resource.h>

#include "json.h"
#include "link.h"
#include "meter.h"
#include "netstat.h"
#include "tcpinfo.h"

/* What a window is opened to count: a plain { RUSAGE_SELF } counts the CPU time alone. */
struct window_counts {
	int who;			/* whose CPU time: RUSAGE_SELF, or RUSAGE_CHILDREN */
	struct meter *meter;		/* zcc -c's, sampled at the window's moments; NULL */
	const struct link *link;	/* the interface whose counters are taken; NULL */
	int host;			/* the host's counters are read (-J, -I over TCP) */
};

struct window {
	int who;
	struct meter *meter;
	int host;
	struct link link;		/* the counted interface's, kept */
	int linked;			/* its counters are taken */
	struct rusage ru_at;
	struct link_sample link_at;
	struct netstat host_at;
};

/* What a window counted. */
struct window_figures {
	double user_secs, sys_secs;
	struct link link;		/* the interface (ifname "": none was found) */
	int linked;			/* its counters were read at both ends */
	struct link_figures link_fig;
	struct netstat host;		/* ok 0: not read */
	struct tcpinfo tcp;		/* have 0: not read */
};

/*
 * Open at the first byte: the meter's sample there (its failing ends the
 * run, meter_die), the link's counters, the host's, then the CPU time.
 */
void window_open(struct window *w, const struct window_counts *counts);

/*
 * zcs: in a child forked after the window opened in its parent, its own CPU
 * time from its start (getrusage's begins at zero in a new process).
 */
void window_forked(struct window *w);

/* A link found after the window opened (zcs -u's proven sender): its counters from now. */
void window_add_link(struct window *w, const struct link *link);

/* The last byte sent: the meter's sample there (a failing spoils its figures). */
void window_last_byte(struct window *w);

/*
 * Close: TCP_INFO of fd (-1: none), the meter's sample at the peer's close
 * where it confirmed the end, the link's and the host's counters, the CPU
 * time, into f.
 */
void window_close(struct window *w, int confirmed, int fd, struct window_figures *f);

/* The summary's ", cpu Uu Ss", and -J's "user_seconds" and "system_seconds". */
void window_print_cpu(FILE *out, const struct window_figures *f);
void window_json_cpu(struct json *j, const struct window_figures *f);

/* The link's figures on a summary line, where they were counted (link_print). */
void window_print_link(FILE *out, const struct window_figures *f);

/*
 * -J's members of the window after the result, each null where it was not
 * counted: "meter" (meter_json: m's figures fig, NULL without; shared -1
 * where there is no one to share with), "link" and "netstat".
 */
void window_json(struct json *j, const struct window_figures *f, const struct meter *m,
		 const struct soak_figures *fig, int shared);

#endif
