/*
 * zcc: one stream's run, alone or as one of -P's: connect, send, wait for
 * zcs's close, and the summary's figures; and the meter's samples at its
 * moments.
 */
#include <err.h>
#include <errno.h>
#include <unistd.h>

#include "lib/timing.h"
#include "client.h"

static void tell_the_parent(const struct start_line *line)
{
	char c = 0;

	if (write(line->ready, &c, 1) != 1)
		err(1, "telling the other streams");
}

static void wait_for_the_others(const struct start_line *line)
{
	char c;
	ssize_t n;

	tell_the_parent(line);
	while ((n = read(line->go, &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		_exit(1);
}

void sender_config(const struct settings *s, struct tx_config *c)
{
	*c = (struct tx_config){ .bufsize = s->bufsize, .depth = s->depth,
				 .wait_secs = s->close_wait_secs, .dgram_bytes = s->dgram_bytes,
				 .rate = rate_share(&s->rate, s->streams).bytes_per_sec,
				 .debug = s->debug, .files = s->files,
				 .n_files = s->n_files };
}

void stream_setup(struct txturns *turns, const struct settings *s)
{
	struct tx_config c;

	sender_config(s, &c);
	txturns_setup(turns, s->arms, s->n_arms, &c, s->slot_ms, s->knob.knob ? &s->knob : NULL);
	turns->events = s->events;
}

struct window_counts stream_window(const struct settings *s, int who, struct meter *m,
				   const struct link *link)
{
	/* The host's counters, read only where -J or -I shows them. */
	return (struct window_counts){ .who = who, .meter = m, .link = link,
				       .host = (s->json || s->tcp_line) && !s->datagram };
}

void run_stream(const struct settings *s, struct txturns *turns, const struct tx_file *files,
		size_t n_files, const struct start_line *line, struct meter *m,
		struct summary *sum)
{
	struct sender *snd = &turns->arms[0];
	int alone = line->ready < 0;
	uint64_t start, end;
	int unconfirmed;
	struct link lk;
	/* Alone, the whole window; as one of -P's, the CPU time: the parent counts the rest. */
	struct window_counts counts = { .who = RUSAGE_SELF };
	struct window win;
	struct window_figures fig;
	const struct tx_plan plan = { .loops = s->loops, .ns = s->time_ms * (NSEC_PER_SEC / 1000) };

	snd->sock = net_connect(s->server, s->port, &s->sockopts, s->debug);
	/* The link is counted for -c's line and -J; with -P, by the parent, from the name here. */
	if (!(s->measure_cpu || s->json) || link_find(&lk, snd->sock) < 0)
		lk = (struct link){ .ifname = "" };
	/* The parent of -P's streams reads it once they are all connected. */
	sum->win.link = lk;
	if (alone)
		counts = stream_window(s, RUSAGE_SELF, m, &lk);
	net_set_send_timeout(snd->sock, snd->wait_secs);
	if (!s->datagram)
		net_set_tcp_flags(snd->sock, &s->sockopts);
	if (s->cork)
		net_set_cork(snd->sock);
	if (s->exchange) {
		char why[160];

		if (net_exchange_ask(snd->sock, s->close_wait_secs, why, sizeof(why)) < 0)
			errx(1, "the opening exchange (-E) with %s: %s", s->server, why);
	}
	txturns_connected(turns);
	if (!alone)
		wait_for_the_others(line);
	window_open(&win, &counts);
	start = timing_now_ns();
	txturns_send(turns, m, &plan, files, n_files, s->exchange);
	snd = turns->current;
	end = timing_now_ns();
	if (s->debug && !s->datagram)
		net_say_mss_settled(snd->sock);
	if (!alone)
		tell_the_parent(line);
	window_last_byte(&win);
	unconfirmed = tx_await_close(snd, s->close_wait_secs);
	if (!unconfirmed)
		end = timing_now_ns();
	window_close(&win, !unconfirmed, s->datagram ? -1 : snd->sock, &fig);
	txturns_finish(turns, s->exchange, &snd->zc_sends, &snd->zc_copied);
	*sum = (struct summary){ .bytes = snd->sent, .ns = end - start, .end_ns = end,
				 .confirmed = !unconfirmed,
				 .zc_sends = snd->zc_sends, .zc_copied = snd->zc_copied,
				 .datagrams = snd->datagrams, .calls = snd->calls,
				 .received = snd->acked_datagrams,
				 .rate = rate_share(&s->rate, s->streams),
				 .files_sent = snd->files_sent, .win = fig };
	txturns_close(turns);
}
