/* The copying modes: sendfile(), and read() with send() or write(). */
#include <err.h>
#include <errno.h>
#include <sys/sendfile.h>

#include "tx.h"

/* sendfile: the whole rest of the file per call; the kernel sends from the page cache. */
static void send_data_sendfile(struct sender *snd, int fd, const struct tx_file *f)
{
	off_t off = 0;

	while ((uint64_t)off < f->size) {
		ssize_t n = sendfile(snd->sock, fd, &off, f->size - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			tx_die_sending(snd, "sendfile");
		}
		if (n == 0)
			tx_die_shrunk(f, off);
		snd->sent += n;
		snd->calls++;
	}
}

/* send and write: read() a chunk into the buffer, then send() or write() it. */
static void send_data_copy(struct sender *snd, int fd, const struct tx_file *f)
{
	for (uint64_t at = 0; at < f->size;) {
		size_t n = tx_read_chunk(fd, snd->bufs[0], tx_chunk_at(snd, f, at), f, at);

		tx_send_bytes(snd, snd->bufs[0], n);
		at += n;
	}
}

const struct send_mode tx_sendfile = { .name = "sendfile", .send_stream = tx_stream_send,
				.await_end = tx_stream_await_close, .send_data = send_data_sendfile,
				       .io = NET_IO_SEND };
const struct send_mode tx_send = { .name = "send", .send_stream = tx_stream_send,
				.await_end = tx_stream_await_close, .setup = tx_setup_buffers,
				   .send_data = send_data_copy, .chunked = 1, .io = NET_IO_SEND };
const struct send_mode tx_write = { .name = "write", .send_stream = tx_stream_send,
				.await_end = tx_stream_await_close, .setup = tx_setup_buffers,
				    .send_data = send_data_copy, .chunked = 1, .io = NET_IO_WRITE };
