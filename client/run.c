/*
 * zcc: one stream's run, alone or as one of -P's: connect, send, wait for
 * zcs's close, and the summary's figures; and the meter's samples at its
 * moments.
 */
#include <err.h>
#include <errno.h>
#include <unistd.h>

#include "lib/timing.h"
#include "zcc.h"

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

void sender_setup(struct sender *snd, const struct settings *s)
{
	struct tx_config c;

	sender_config(s, &c);
	tx_sender_setup(snd, s->mode, &c);
}

/* run_stream(), or with turns its arms in turn (snd: arms[0], which connects). */
static void stream(const struct settings *s, struct sender *snd, struct txturns *turns,
		   const struct tx_file *files, size_t n_files, const struct start_line *line,
		   struct meter *m, struct summary *sum)
{
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
		counts = (struct window_counts){ .who = RUSAGE_SELF, .meter = m, .link = &lk,
						 /* The host's counters, read only where -J or -I shows them. */
						 .host = (s->json || s->tcp_line) && !s->datagram };
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
	if (turns)
		txturns_connected(turns);
	else
		tx_sender_connected(snd);
	if (!alone)
		wait_for_the_others(line);
	window_open(&win, &counts);
	start = timing_now_ns();
	if (turns) {
		txturns_start(turns, m);
		tx_send_stream_turns(snd, txturns_next, turns, &plan, files, n_files, s->debug);
		snd = turns->current;
		/* -E: zcs is of this suite, and takes the slot table after the stream. */
		if (s->exchange)
			txturns_send_table(turns);
		txturns_settle(turns);
	} else {
		tx_send_stream(snd, &plan, files, n_files, s->debug);
	}
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
	fig.link = lk;
	if (turns && s->exchange)
		txturns_read_answer(turns, snd->answer, snd->answer_len);
	if (turns)
		txturns_finish(turns, &snd->zc_sends, &snd->zc_copied);
	*sum = (struct summary){ .bytes = snd->sent, .ns = end - start, .end_ns = end,
				 .confirmed = !unconfirmed,
				 .zc_sends = snd->zc_sends, .zc_copied = snd->zc_copied,
				 .datagrams = snd->datagrams, .calls = snd->calls,
				 .received = snd->acked_datagrams,
				 .rate = rate_share(&s->rate, s->streams),
				 .files_sent = snd->files_sent, .win = fig };
	if (turns)
		txturns_close(turns);
	else
		tx_sender_close(snd);
}

void run_stream(const struct settings *s, struct sender *snd, const struct tx_file *files,
		size_t n_files, const struct start_line *line, struct meter *m,
		struct summary *sum)
{
	stream(s, snd, NULL, files, n_files, line, m, sum);
}

void run_stream_turns(const struct settings *s, struct txturns *turns,
		      const struct tx_file *files, size_t n_files, struct meter *m,
		      struct summary *sum)
{
	struct start_line alone = { -1, -1 };

	stream(s, &turns->arms[0], turns, files, n_files, &alone, m, sum);
}

