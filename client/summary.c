/*
 * zcc's report: the summary line (each stream's and the total's with -P),
 * or -J's object, then each thing that went wrong, a line each.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>

#include "lib/dgram.h"
#include "lib/json.h"
#include "lib/limit.h"
#include "lib/marks.h"
#include "lib/system.h"
#include "lib/timing.h"
#include "lib/units.h"
#include "client.h"

/* -R: the share of the rate asked that the summary's bytes reached over its time. */
static double rate_reached_pct(const struct summary *sum)
{
	return sum->ns ? 100.0 * sum->bytes * 1e9 / sum->ns / sum->rate.bytes_per_sec : 0;
}

/* Short of the rate asked: -u's default pace, a ceiling that no one asked for, is no target. */
static int below_rate(const struct summary *sum)
{
	return sum->rate.bytes_per_sec && sum->rate.asked && rate_reached_pct(sum) < RATE_REACHED_PCT;
}

/*
 * A summary line: what was sent, how many of the files named were skipped
 * (each said as it was), with -c ", load LOAD%, demand DEMAND us/KB, kernel LOAD%",
 * the CPU time zcc took, and in the zero-copy modes how many sends the
 * kernel copied. With -P, each stream's line and the total's have a prefix.
 */
static void print_summary(const char *prefix, const struct stream_modes *mode,
			  const struct summary *sum, char unit)
{
	uint64_t asked = sum->rate.bytes_per_sec;
	char rate[48];

	printf("%ssent %llu bytes in %.3f s, %s, mode %s", prefix, (unsigned long long)sum->bytes,
	       timing_secs(sum->ns), units_rate(rate, sizeof(rate), sum->bytes, sum->ns, unit),
	       mode->name);
	if (sum->skipped)
		printf(", %u file%s skipped", sum->skipped, sum->skipped == 1 ? "" : "s");
	if (mode->datagram)
		printf(", %llu datagrams in %llu calls", (unsigned long long)sum->datagrams,
		       (unsigned long long)sum->calls);
	if (mode->datagram && sum->confirmed)
		printf(", %llu received", (unsigned long long)sum->received);
	if (asked && unit == UNITS_DEFAULT && sum->rate.unit)
		printf(", rate %.0f kbytes/sec asked (%s)", asked / 1024.0,
		       units_rate(rate, sizeof(rate), asked, NSEC_PER_SEC, sum->rate.unit));
	else if (asked && unit == UNITS_DEFAULT)
		printf(", rate %.0f kbytes/sec asked", asked / 1024.0);
	else if (asked)
		printf(", rate %s asked",
		       units_rate(rate, sizeof(rate), asked, NSEC_PER_SEC, unit));
	if (below_rate(sum))
		printf(", %.0f%% reached (short of it)", floor(rate_reached_pct(sum)));
	if (sum->metered)
		meter_print(stdout, &sum->fig);
	window_print_cpu(stdout, &sum->win);
	if (mode->counts_copies)
		printf(", zerocopy %llu of %llu sends (kernel copied %llu)",
		       (unsigned long long)(sum->zc_sends - sum->zc_copied),
		       (unsigned long long)sum->zc_sends, (unsigned long long)sum->zc_copied);
	if (sum->metered)
		window_print_link(stdout, &sum->win);
	printf("\n");
}

/* -J: a summary's figures, as members of the object open now. */
static void json_summary(struct json *j, const struct stream_modes *mode, const struct summary *sum)
{
	json_uint(j, "bytes", sum->bytes);
	json_double(j, "seconds", timing_secs(sum->ns), 6);
	json_uint(j, "kbytes_per_sec", timing_kbytes_per_sec(sum->bytes, sum->ns));
	json_uint(j, "files_sent", sum->files_sent);
	if (!mode->datagram) {
		tcpinfo_json(j, &sum->win.tcp);
		json_uint(j, "calls", sum->calls);
		json_ratio(j, "bytes_per_call", sum->bytes, sum->calls, 1);
	}
	json_bool(j, "confirmed", sum->confirmed);
	window_json_cpu(j, &sum->win);
	if (sum->rate.bytes_per_sec) {
		json_double(j, "rate_reached_pct", rate_reached_pct(sum), 1);
		if (sum->rate.asked)
			json_bool(j, "below_rate", below_rate(sum));
		else
			json_null(j, "below_rate");
	} else {
		json_null(j, "rate_reached_pct");
		json_null(j, "below_rate");
	}
	if (mode->datagram) {
		json_uint(j, "datagrams", sum->datagrams);
		json_uint(j, "calls", sum->calls);
		if (sum->confirmed)
			json_uint(j, "received_datagrams", sum->received);
		else
			json_null(j, "received_datagrams");
	}
	if (mode->counts_copies) {
		json_object(j, "zerocopy");
		json_uint(j, "sends", sum->zc_sends);
		json_uint(j, "zerocopy", sum->zc_sends - sum->zc_copied);
		json_uint(j, "copied", sum->zc_copied);
		json_close(j);
	}
}

static void json_settings(struct json *j, const struct settings *s, size_t n_files)
{
	json_object(j, "settings");
	json_string(j, "server", s->server);
	json_int(j, "port", s->port);
	json_string(j, "protocol", s->datagram ? "udp" : "tcp");
	json_string(j, "mode", s->modes.name);
	if (s->datagram)
		json_int(j, "datagram_bytes", s->dgram_bytes);
	else
		json_null(j, "datagram_bytes");
	if (s->modes.chunked)
		json_int(j, "bufsize", s->bufsize);
	else
		json_null(j, "bufsize");
	if (s->modes.queued)
		json_int(j, "depth", s->depth);
	else
		json_null(j, "depth");
	if (s->time_ms) {
		json_null(j, "loops");
		json_double(j, "time_secs", s->time_ms / 1000.0, 3);
	} else {
		json_uint(j, "loops", s->loops);
		json_null(j, "time_secs");
	}
	json_uint(j, "files", n_files);
	json_uint(j, "skipped_files", (uint64_t)s->n_paths - n_files);
	json_int(j, "streams", s->streams);
	if (s->rate.bytes_per_sec)
		json_uint(j, "rate_bytes_per_sec", s->rate.bytes_per_sec);
	else
		json_null(j, "rate_bytes_per_sec");
	json_bool(j, "cork", s->cork);
	json_bool(j, "nodelay", s->sockopts.nodelay);
	json_bool(j, "quickack", s->sockopts.quickack);
	json_bool(j, "exchange", s->exchange);
	if (s->n_cpu_list > 1) {
		json_array(j, "cpu");
		for (int i = 0; i < s->n_cpu_list; i++)
			json_int(j, NULL, s->cpu_list[i]);
		json_close(j);
	} else if (s->cpu >= 0) {
		json_int(j, "cpu", s->cpu);
	} else {
		json_null(j, "cpu");
	}
	json_int(j, "rcvbuf", s->sockopts.rcvbuf_bytes);
	json_int(j, "sndbuf", s->sockopts.sndbuf_bytes);
	if (s->sockopts.mss)
		json_int(j, "mss", s->sockopts.mss);
	else
		json_null(j, "mss");
	json_string(j, "congestion", s->sockopts.congestion);
	json_int(j, "close_wait_secs", s->close_wait_secs);
	json_close(j);
}

/*
 * -J: the run as one JSON object on a line: the settings, the host, with -P
 * every stream's figures, the result (the total with -P), the meter's, and
 * what limited the flow.
 */
static void print_summary_json(const struct settings *s, const struct meter *m,
			       const struct txturns *turns, size_t n_files,
			       const struct summary *streams, long failed,
			       const struct summary *sum, const struct limit *limit)
{
	struct json j;

	json_begin(&j, stdout);
	json_string(&j, "program", "zcc");
	json_host(&j);
	system_json(&j);
	json_settings(&j, s, n_files);
	if (s->streams == 1) {
		json_null(&j, "streams");
	} else {
		json_array(&j, "streams");
		for (long i = 0; i < s->streams; i++) {
			json_object(&j, NULL);
			json_summary(&j, &s->modes, &streams[i]);
			json_bool(&j, "failed", streams[i].failed);
			json_close(&j);
		}
		json_close(&j);
	}
	json_object(&j, "result");
	json_summary(&j, &s->modes, sum);
	if (s->streams > 1)
		json_int(&j, "failed_streams", failed);
	json_close(&j);
	/* Every member of docs/zc-json.schema.json's, null where it does not apply. */
	window_json(&j, &sum->win, m, sum->metered ? &sum->fig : NULL, -1);
	limit_json(&j, limit);
	if (turns) {
		json_object(&j, "turns");
		json_string(&j, "taken_by", "zcc");
		txturns_json(turns, &j);
		json_close(&j);
	} else {
		json_null(&j, "turns");
	}
	json_end(&j);
}

/*
 * -I: after TCP_INFO's line, the calls that handed the socket data and the
 * bytes a call, and with the host's counters (the whole run's) their window.
 */
static void print_calls(const char *prefix, const struct summary *sum, int host)
{
	printf("%scalls: %llu, %.1f bytes a call", prefix, (unsigned long long)sum->calls,
	       sum->calls ? (double)sum->bytes / sum->calls : 0.0);
	if (host) {
		printf("; ");
		netstat_print(stdout, &sum->win.host);
	}
	printf("\n");
}

/* Each stream's line, then the total's. */
static void print_streams(const struct settings *s, const struct summary *streams,
			  const struct summary *total)
{
	char prefix[40];

	for (long i = 0; i < s->streams; i++) {
		if (streams[i].failed)
			continue;
		snprintf(prefix, sizeof(prefix), "stream %ld: ", i + 1);
		print_summary(prefix, &s->modes, &streams[i], s->unit);
		if (s->tcp_line) {
			tcpinfo_print(stdout, prefix, &streams[i].win.tcp);
			print_calls(prefix, &streams[i], 0);
		}
	}
	snprintf(prefix, sizeof(prefix), "all %ld streams: ", s->streams);
	print_summary(prefix, &s->modes, total, s->unit);
	if (s->tcp_line)
		print_calls(prefix, total, 1);
}

void report(const struct settings *s, struct meter *m, const struct txturns *turns,
		   size_t n_files, const struct summary *streams, long failed, struct summary *sum)
{
	int meter_ok = !m || !m->spoiled;
	struct limit limit;

	sum->metered = m && meter_ok && !failed;
	if (sum->metered)
		meter_figures(m, sum->confirmed, sum->bytes, &sum->fig);
	/* zcc's CPU time is of one CPU where one stream ran pinned (-B). */
	limit_find(&limit, "sender", sum->metered ? m->cpu : NULL, sum->metered ? meter_cpus(m) : 0,
		   sum->ns ? (sum->win.user_secs + sum->win.sys_secs) / timing_secs(sum->ns) : 0,
		   s->streams == 1 ? s->cpu : -1, &sum->win.tcp, sum->ns,
		   sum->rate.asked && !below_rate(sum));
	if (s->json)
		print_summary_json(s, m, turns, n_files, streams, failed, sum, &limit);
	else if (s->streams > 1)
		print_streams(s, streams, sum);
	else
		print_summary("", &s->modes, sum, s->unit);
	if (s->tcp_line && !s->json && s->streams == 1) {
		char why[200];

		tcpinfo_print(stdout, "", &sum->win.tcp);
		print_calls("", sum, 1);
		if (tcpinfo_held_back(&sum->win.tcp, sum->ns, sum->rate.asked && !below_rate(sum), why,
				      sizeof(why)))
			printf("held back by %s\n", why);
	}
	if (turns && !s->json)
		txturns_print(turns, stdout, s->unit);
	if (sum->metered && !s->json)
		meter_print_cpus(stdout, m, &sum->fig);
	if ((sum->metered || s->tcp_line) && !s->json)
		limit_print(stdout, &limit);
	if (turns)
		txturns_warn(turns);
	if (failed)
		errx(1, "%ld of %ld streams failed: the total above counts the others", failed,
		     s->streams);
	if (!sum->confirmed && s->datagram)
		errx(1, "zcs did not answer the end of the datagrams within %ld s of the last one: "
			"the time above runs to the last datagram sent, unconfirmed",
		     s->close_wait_secs);
	if (!sum->confirmed)
		errx(1, "zcs did not close the connection within %ld s of the last byte: the time "
			"above runs to the last byte sent, unconfirmed", s->close_wait_secs);
	if (!meter_ok)
		errx(1, "%s during the transfer: no load figure", meter_error(m));
	if (m && m->note[0])
		warnx("note: %s", m->note);
	if (s->datagram && dgram_lossy(sum->datagrams, sum->received))
		warnx("note: zcs received %llu of %llu datagrams, %.1f%% lost: more than %.0f%%, and "
		      "the load is not comparable with that of runs that lost less",
		      (unsigned long long)sum->received, (unsigned long long)sum->datagrams,
		      dgram_loss_pct(sum->datagrams, sum->received), DGRAM_LOSS_PCT);
	if (below_rate(sum))
		warnx("note: mode %s reached %.1f%% of the rate asked (-R %llu): it could not run at "
		      "that rate here, and its load is not comparable with that of runs that did",
		      s->modes.name, rate_reached_pct(sum),
		      (unsigned long long)s->rate.bytes_per_sec);
}

