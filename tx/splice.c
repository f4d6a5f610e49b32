#include <err.h>
#include <errno.h>

#include "tx.h"

/*
 * splice: the file's pages into a pipe as large as a chunk, and from the pipe
 * to the socket, with no copy through user space.
 */
static void setup_splice(struct sender *snd)
{
	net_splice_pipe(snd->pipe, snd->bufsize);
}

static void send_data_splice(struct sender *snd, int fd, const struct tx_file *f)
{
	loff_t off = 0;

	while ((uint64_t)off < f->size) {
		size_t len = tx_chunk_at(snd, f, off);
		/* MORE, like MSG_MORE, holds a partial segment back for the next chunk. */
		unsigned more = (uint64_t)off + len < f->size ? SPLICE_F_MORE : 0;
		ssize_t n = splice(fd, &off, snd->pipe[1], NULL, len, SPLICE_F_MOVE | more);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err(1, "splice from %s", f->path);
		if (n == 0)
			tx_die_shrunk(f, off);
		while (n > 0) {
			ssize_t m = splice(snd->pipe[0], NULL, snd->sock, NULL, n,
					   SPLICE_F_MOVE | more);

			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0)
				tx_die_sending(snd, "splice to the socket");
			snd->sent += m;
			snd->calls++;
			n -= m;
		}
	}
}

const struct send_mode tx_splice = { .name = "splice", .send_stream = tx_stream_send,
				.await_end = tx_stream_await_close, .setup = setup_splice,
				     .send_data = send_data_splice, .chunked = 1, .io = NET_IO_SEND };
