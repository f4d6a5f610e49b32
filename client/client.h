/*
 * client/: the rest of zcc, below zcc.c (its options and main), which
 * uses this folder and is used by none of it: the settings and a stream's
 * summary, shared by parallel.c (-P's streams and the stop signals), run.c
 * (one stream's run), summary.c (the report) and txturns.c (the arms).
 */
#ifndef ZC_CLIENT_H
#define ZC_CLIENT_H

#include <stdint.h>
#include <stddef.h>

#include "lib/meter.h"
#include "lib/net.h"
#include "lib/window.h"
#include "tx/tx.h"
#include "txturns.h"

/* -P: the most streams at once. */
#define MAX_STREAMS 64

/*
 * -R: the rate asked, under one name from the option to the socket: the
 * settings' (the whole transfer's), each stream's share (rate_share), whose
 * bytes_per_sec is its sender's rate (tx_config.rate, which paces the
 * socket), and each summary's.
 */
struct rate {
	uint64_t bytes_per_sec;	/* 0: not paced */
	int asked;		/* given with -R: -u paces at DEFAULT_DGRAM_RATE without it, asked of no one */
	char unit;		/* -R in kbit, mbit, gbit or tbit: 'k', 'm', 'g', 't' (-f's letter); 0 */
};

/* One stream's share of a rate split across streams. */
static inline struct rate rate_share(const struct rate *r, long streams)
{
	return (struct rate){ r->bytes_per_sec / streams, r->asked, r->unit };
}

/*
 * What the summaries say of a stream's arms: the mode's name, or the list's
 * ("write,sendfile", "send -X b=4k,64k"), and what any of its arms does.
 */
struct stream_modes {
	const char *name;
	int datagram;		/* -u's modes */
	int chunked;		/* -b's chunks */
	int queued;		/* -q's depth */
	int counts_copies;	/* the zero-copy sends the kernel copied */
};

struct settings {
	int debug;
	int json;		/* -J */
	char unit;		/* -f: the summary's rate (lib/units) */
	long bufsize;
	int cpu;		/* -B: the first CPU, or -1 */
	int cpu_list[MAX_STREAMS];	/* -B's CPUs; with -P, stream i runs on [i % n] */
	int n_cpu_list;
	long streams;		/* -P */
	struct rate rate;	/* -R: the whole transfer's, split across the streams (rate_share) */
	int datagram;		/* -u */
	long dgram_bytes;	/* -l */
	struct net_sockopts sockopts;
	long loops;
	long time_ms;		/* -t: send for this long instead of -n loops; 0 */
	int port;
	const struct send_mode *arms[TURNS_MAX_ARMS];	/* -m A,B,...: the modes taking turns */
	unsigned n_arms;	/* 1: one mode, arms[0] */
	unsigned queued_arms;	/* of them, those -q sets */
	struct stream_modes modes;	/* the arms, as the summaries name them */
	char list_name[256];
	const char *knob_arg;	/* -X NAME=V1,V2,...: as given; NULL */
	char knob_name[256];	/* -X's NAME, where it is a sysctl's */
	struct knob_arms knob;	/* -X: the setting the arms differ in (knob NONE without) */
	long slot_ms;		/* -A */
	long depth;
	int cork;
	int measure_cpu;
	int tcp_line;		/* -I: TCP_INFO's line after each stream's summary */
	int exchange;		/* -E: the opening exchange before the stream */
	long tare_ms;		/* -T: the tare; with -C, each period of the calibration */
	long close_wait_secs;
	int calibrate_only;	/* -C */
	int n_cpus; /* 0: every CPU in the affinity mask */
	struct cpu_list soak_set;	/* -U: the meter's CPUs, where it has any */
	const char *server;
	const char *events_path;	/* -e: the slot events' file; NULL */
	FILE *events;			/* -e's, opened */
	const char *mode_arg;	/* -m as given, and -T: read once every option is */
	const char *tare_arg;
	char **paths;
	int n_paths;
	const struct tx_file *files;	/* of them, those to send (-m memory reads them first) */
	size_t n_files;
};


/* Everything a summary says, as numbers: one stream's, or -P's total. */
struct summary {
	uint64_t bytes, ns;
	uint64_t end_ns;	/* when its time stopped (CLOCK_MONOTONIC) */
	int confirmed;		/* zcs closed the connection within -W */
	int failed;		/* -P: the stream failed; bytes is what it sent first */
	struct rate rate;	/* -R: what was asked of what this summary counts (-u: its pace) */
	uint64_t zc_sends, zc_copied;	/* zerocopy, uring-zc */
	uint64_t datagrams;	/* -u: DATA datagrams sent */
	uint64_t calls;		/* the calls that handed the socket data (-u: that sent the datagrams) */
	uint64_t received;	/* -u: of them, what zcs's ACK says it received (confirmed) */
	uint64_t files_sent;	/* whole files (with -t, round and round the set) */
	unsigned skipped;	/* the run's: files named but not sent (not regular, unreadable) */
	int metered;		/* -c, and the meter worked throughout */
	struct soak_figures fig;	/* the meter's */
	/*
	 * The CPU time, the link the stream went out of, the host's ACK and
	 * corking counters over the same window, and TCP_INFO at the stream's
	 * end (a stream's; not -P's total).
	 */
	struct window_figures win;
};

/*
 * How a stream starts and ends: alone, it takes the meter's samples itself;
 * as one of -P's, it writes a byte on `ready` (its own pipe to the parent)
 * once connected and another at its last byte, and waits for a byte on `go`,
 * so that all start at once. End-of-file on `go` means zcc has gone.
 */
struct start_line {
	int ready, go;		/* -1, -1: alone */
};

/* run.c: */

/*
 * What the settings ask of a sender (tx_config), and a stream's arms set up
 * so: -m's one mode, or the modes (or -X's values) that take turns.
 */
void sender_config(const struct settings *s, struct tx_config *c);
void stream_setup(struct txturns *turns, const struct settings *s);

/*
 * What a stream's window counts (lib/window), alone or as -P's total: whose
 * CPU time (who), the meter (m; NULL without), the link found (l, ifname ""
 * where none was), and the host's counters where -J or -I shows them.
 */
struct window_counts stream_window(const struct settings *s, int who, struct meter *m,
				   const struct link *l);

/*
 * One stream, sent by its arms (one mode is turns of one arm): connect
 * (arms[0]), send the files -n times, wait for zcs to close (for -W at
 * most), and fill in its summary. The time runs to zcs's close, or to the
 * last byte if zcs did not close; alone, with a meter (m), the meter's
 * window ends at the same moment.
 */
void run_stream(const struct settings *s, struct txturns *turns, const struct tx_file *files,
		size_t n_files, const struct start_line *line, struct meter *m,
		struct summary *sum);

/* parallel.c: */

/*
 * SIGINT, SIGTERM and SIGHUP, and zcc's exit, stop the streams and the
 * meter's soakers and reap them; a signal says how far the run got (snd's
 * count alone, the streams' with -P) and exits 1.
 */
void catch_stop_signals(void);
/* What a stop signal counts alone: the one stream's sender sending now (-m A,B: they take turns). */
void stop_signals_count(struct sender *const *snd);
/* What it stops besides the streams: the meter's soakers, from before they start. */
void stop_signals_end_meter(struct meter *m);
/* A sysctl -X changes: put back as the meter's soakers are stopped. */
void stop_signals_restore(struct sysctl_knob *k);

/*
 * -P: a child per stream. They connect, wait until all are connected, and
 * are let go at once; the total runs from then until the last one's time
 * ended (zcs's close, or its last byte if zcs did not close). Returns how
 * many streams failed (each said why on stderr).
 */
long run_parallel(const struct settings *s, struct meter *m, const struct tx_file *files,
		  size_t n_files, struct summary *streams, struct summary *total);

/* summary.c: */

/*
 * The summary (with -P each stream's line and the total's; with -J the
 * object; with turns the arms' lines), its figures from the meter m where one
 * ran; then whatever went wrong, a line each and exit 1, and the notes.
 */
void report(const struct settings *s, struct meter *m, const struct txturns *turns,
	    size_t n_files, const struct summary *streams, long failed, struct summary *sum);

#endif
