#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/net.h"
#include "rx.h"

/*
 * The receiver the modes share, below them: its buffers, taken when data
 * first comes, and the reads that feed the stream's decoder.
 */

void rx_check(const struct recv_mode *mode, size_t bufsize)
{
	int trial[2];

	if (!mode->needs_pipe)
		return;
	net_splice_pipe(trial, bufsize);
	close(trial[0]);
	close(trial[1]);
}

void rx_check_listening(const struct recv_mode *mode, int lfd)
{
	if (mode->check)
		mode->check(lfd);
}

void rx_init(struct receiver *r, int fd, const struct recv_mode *mode, size_t bufsize,
	     const char *peer, int debug)
{
	rx_init_arms(r, fd, &mode, 1, bufsize, peer, debug);
}

void rx_init_arms(struct receiver *r, int fd, const struct recv_mode *const *arms, unsigned n,
		  size_t bufsize, const char *peer, int debug)
{
	if (arms[0]->datagram)
		bufsize = (size_t)RX_DGRAM_BYTES * (arms[0]->batch ? arms[0]->batch : 1);
	*r = (struct receiver){ .fd = fd, .mode = arms[0], .n_arms = n, .peer = peer,
				.debug = debug, .bufsize = bufsize, .pipe = { -1, -1 },
				.devnull = -1 };
	memcpy(r->arms, arms, n * sizeof(*arms));
	proto_rx_init(&r->rx);
}

void rx_use(struct receiver *r, unsigned i)
{
	r->mode = r->arms[i];
}

/* Whether arm i's mode is an earlier arm's too (an A/A run): its buffers are that arm's. */
static int taken_before(const struct receiver *r, unsigned i)
{
	for (unsigned k = 0; k < i; k++)
		if (r->arms[k] == r->arms[i])
			return 1;
	return 0;
}

/* Whether any arm needs a pipe. */
static int any_needs_pipe(const struct receiver *r)
{
	for (unsigned i = 0; i < r->n_arms; i++)
		if (r->arms[i]->needs_pipe)
			return 1;
	return 0;
}

void rx_take_buffers(struct receiver *r)
{
	r->buf = malloc(r->bufsize);
	if (!r->buf)
		err(1, "allocating a %zu-byte buffer", r->bufsize);
	if (any_needs_pipe(r)) {
		net_splice_pipe(r->pipe, r->bufsize);
		r->devnull = open("/dev/null", O_WRONLY);
		if (r->devnull < 0)
			err(1, "/dev/null");
	}
	for (unsigned i = 0; i < r->n_arms; i++)
		if (r->arms[i]->setup && !taken_before(r, i))
			r->arms[i]->setup(r);
}

uint64_t rx_read_what_came(struct receiver *r)
{
	uint64_t got = 0;
	ssize_t n;

	if (!r->buf)
		rx_take_buffers(r);
	while ((n = recv(r->fd, r->buf, r->bufsize, MSG_DONTWAIT)) > 0) {
		proto_rx_feed(&r->rx, r->buf, n);
		got += n;
	}
	return got;
}

void rx_close(struct receiver *r)
{
	for (unsigned i = 0; r->buf && i < r->n_arms; i++)
		if (r->arms[i]->close && !taken_before(r, i))
			r->arms[i]->close(r);
	for (int i = 0; i < 2; i++)
		if (r->pipe[i] >= 0)
			close(r->pipe[i]);
	if (r->devnull >= 0)
		close(r->devnull);
	proto_rx_free(&r->rx);
	free(r->buf);
	free(r->msgs);
	free(r->iovs);
	free(r->froms);
	r->buf = NULL;
	r->msgs = NULL;
	r->iovs = NULL;
	r->froms = NULL;
	r->pipe[0] = r->pipe[1] = r->devnull = -1;
}

ssize_t rx_read_and_feed(struct receiver *r, size_t len)
{
	ssize_t n = read(r->fd, r->buf, len && len < r->bufsize ? len : r->bufsize);

	if (n > 0)
		proto_rx_feed(&r->rx, r->buf, n);
	return n;
}

ssize_t rx_receive_header(struct receiver *r)
{
	return rx_read_and_feed(r, proto_rx_header_due(&r->rx));
}

size_t rx_data_chunk(const struct receiver *r)
{
	uint32_t data = proto_rx_data_due(&r->rx);

	return data < r->bufsize ? data : r->bufsize;
}
