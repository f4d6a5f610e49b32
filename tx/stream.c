#include <err.h>
#include <errno.h>
#include <poll.h>
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

/* One file: its length as it is now, then its data. */
static void send_one_file(struct sender *snd, const struct tx_file *f)
{
	struct tx_file now;
	int fd = tx_open_file(f, &now);

	send_u32(snd, now.size);
	snd->mode->send_data(snd, fd, &now);
	tx_close_file(fd, &now);
}

void tx_stream_send(struct sender *snd, tx_turn_fn turn, void *arg, uint32_t loops,
		    const struct tx_file *files, size_t n_files, int debug)
{
	if (turn)
		snd = turn(arg);
	send_u32(snd, loops);
	for (uint32_t loop = 0; loop < loops; loop++) {
		send_u32(snd, n_files);
		for (size_t i = 0; i < n_files; i++) {
			if (turn)
				snd = turn(arg);
			if (debug > 1)
				tx_say_file(loop, &files[i]);
			send_one_file(snd, &files[i]);
		}
	}
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
	char sink[256];

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
		n = read(snd->sock, sink, sizeof(sink));
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			tx_die_sending(snd, "read");
	}
}
