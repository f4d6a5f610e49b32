#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/proto.h"
#include "../lib/timing.h"
#include "tx.h"

/*
 * A TCP stream as the 2001 protocol has it: the loop count, then each loop's
 * file count and files, each its length and its data (the mode's send_data);
 * then the half-close, and zcs's close awaited. The stream modes' rows take
 * these as their send_stream and await_end.
 */

static void send_u32(struct sender *snd, uint32_t v)
{
	unsigned char b[PROTO_U32_BYTES];

	proto_put_u32(b, v);
	tx_send_bytes(snd, b, sizeof(b));
}

/* One file: its length as it is now, then its data (a mode of its own: as it has it). */
static void send_one_file(struct sender *snd, const struct tx_file *f)
{
	struct tx_file now;
	int fd;

	if (snd->mode->send_file) {
		snd->mode->send_file(snd, f);
		return;
	}
	fd = tx_open_file(snd, f, &now);
	tx_send_length(snd, now.size);
	snd->mode->send_data(snd, fd, &now);
	tx_close_file(snd, f, fd, &now);
}

/*
 * -t: how many files the next loop sends, with `done` sent in `elapsed` of
 * the plan's time and `last` in the loop before: what the rate so far sends
 * in the TX_TIMED_SLICES-th part of the time, or in the time left if that
 * is less; one at least, and at most twice the loop before's, for the
 * first files fill the socket's buffer faster than the peer takes them.
 */
static uint64_t timed_loop_files(const struct tx_plan *plan, uint64_t done, uint64_t elapsed,
				 uint64_t last)
{
	uint64_t slice = plan->ns / TX_TIMED_SLICES, left = plan->ns - elapsed;
	double n;

	if (done == 0 || elapsed == 0)
		return 1;
	n = (double)done / elapsed * (left < slice ? left : slice);
	if (n > 2.0 * last)
		n = 2.0 * last;
	return n < 1 ? 1 : n > UINT32_MAX ? UINT32_MAX : (uint64_t)n;
}

/*
 * -t, paced: of count files from files[next] on, how many fit in what is
 * left of the rate's bytes for the time (`left`); one at least.
 */
static uint64_t files_within(const struct tx_file *files, size_t n_files, size_t next,
			     uint64_t count, double left)
{
	uint64_t k = 0;

	for (double bytes = 0; k < count; k++, next = next + 1 < n_files ? next + 1 : 0) {
		bytes += PROTO_U32_BYTES + files[next].size;
		if (bytes > left)
			break;
	}
	return k ? k : 1;
}

/* -t's end: the loops the time left unused, as empty loops (a zero file count each). */
static void send_empty_loops(struct sender *snd, uint32_t loops)
{
	static const unsigned char zeros[4096 * PROTO_U32_BYTES];

	while (loops > 0) {
		uint32_t n = loops < 4096 ? loops : 4096;

		tx_send_bytes(snd, zeros, n * PROTO_U32_BYTES);
		loops -= n;
	}
}

void tx_stream_send(struct sender *snd, tx_turn_fn turn, void *arg, const struct tx_plan *plan,
		    const struct tx_file *files, size_t n_files, int debug)
{
	uint32_t loops = plan->ns ? TX_TIMED_LOOPS : plan->loops, loop;
	uint64_t start = timing_now_ns(), done = 0, count = 0, sent0;
	size_t next = 0;

	if (turn)
		snd = turn(arg);
	sent0 = snd->sent;
	send_u32(snd, loops);
	for (loop = 0; loop < loops && !tx_time_up(snd, plan, start, sent0); loop++) {
		count = plan->ns ? timed_loop_files(plan, done, timing_now_ns() - start, count) : n_files;
		if (plan->ns && snd->rate)
			count = files_within(files, n_files, next, count,
					     (double)snd->rate * plan->ns / NSEC_PER_SEC - (snd->sent - sent0));

		send_u32(snd, count);
		for (uint64_t i = 0; i < count; i++, done++) {
			if (turn)
				snd = turn(arg);
			if (debug > 1)
				tx_say_file(loop, &files[next]);
			send_one_file(snd, &files[next]);
			next = next + 1 < n_files ? next + 1 : 0;
		}
	}
	snd->files_sent = done;
	if (loop < loops)
		send_empty_loops(snd, loops - loop);
	else if (plan->ns && !tx_time_up(snd, plan, start, sent0))
		warnx("-t: the stream's %u loops were used up %.3f s into the %.3f s asked",
		      loops, timing_secs(timing_now_ns() - start), timing_secs(plan->ns));
}

/* What zcs sent before its close, kept for the caller (a turns answer), up to TX_ANSWER_MAX. */
static void keep_answer(struct sender *snd, const char *buf, size_t n)
{
	if (snd->answer_len + n > TX_ANSWER_MAX)
		return;
	if (snd->answer_len + n > snd->answer_cap) {
		while (snd->answer_len + n > snd->answer_cap)
			snd->answer_cap = snd->answer_cap ? 2 * snd->answer_cap : 65536;
		snd->answer = realloc(snd->answer, snd->answer_cap);
		if (!snd->answer)
			err(1, "realloc");
	}
	memcpy(snd->answer + snd->answer_len, buf, n);
	snd->answer_len += n;
}

/*
 * Half-close and wait for zcs to close too, so the time counts until the
 * receiver has read the last byte rather than until it left this host's
 * buffers. The wait has one deadline, whatever the peer sends meanwhile;
 * returns 0 if zcs closed in time, 1 if it did not.
 *
 * A zero-copy mode waits for the kernel to give its last buffers back only
 * after the half-close: the kernel gives one back when the peer acknowledges
 * its data, and the peer may hold the acknowledgement of a stream's last
 * segment for a delayed ACK's 40 ms unless a FIN follows it. Waiting first,
 * a paced run of half a second lost a tenth of its rate in one run of three.
 */
int tx_stream_await_close(struct sender *snd, long wait_secs)
{
	struct pollfd pfd = { .fd = snd->sock, .events = POLLIN };
	uint64_t deadline;
	char sink[65536];

	if (shutdown(snd->sock, SHUT_WR) < 0)
		tx_die_sending(snd, "shutdown");
	if (snd->mode->finish)
		snd->mode->finish(snd);
	deadline = timing_now_ns() + wait_secs * NSEC_PER_SEC;
	for (;;) {
		uint64_t now = timing_now_ns();
		int rc;
		ssize_t n;

		if (now >= deadline)
			return 1;
		rc = poll(&pfd, 1, (deadline - now + 999999) / 1000000);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			err(1, "poll");
		if (rc == 0)
			continue;
		/*
		 * Not blocking: poll() says POLLERR too for what waits on the error
		 * queue (a zero-copy completion), which read() does not take.
		 */
		n = recv(snd->sock, sink, sizeof(sink), MSG_DONTWAIT);
		if (n == 0)
			return 0;
		if (n > 0 && snd->keep_answer)
			keep_answer(snd, sink, n);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			poll(NULL, 0, 1);
		else if (n < 0 && errno != EINTR)
			tx_die_sending(snd, "read");
	}
}
