#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/timing.h"
#include "tx.h"

/*
 * zerocopy: send() with MSG_ZEROCOPY from a ring of buffers. The kernel keeps
 * a buffer's pages until it says, on the error queue, that it is done with
 * the ids of the sends made from it; a buffer is reused only then, in the
 * order the buffers were filled.
 */
void tx_zc_connected(struct sender *snd)
{
	if (net_set_zerocopy(snd->sock) < 0)
		err(1, "-m %s: setsockopt SO_ZEROCOPY", snd->mode->name);
}

/*
 * A send pins at most half of RLIMIT_MEMLOCK, where it applies, so that one
 * send is never over the limit by itself and two can be in flight.
 */
static void setup_zerocopy(struct sender *snd)
{
	rlim_t limit = tx_pin_limit();
	size_t page = sysconf(_SC_PAGESIZE);

	snd->zc_send_max = SIZE_MAX;
	if (limit != RLIM_INFINITY)
		snd->zc_send_max = limit / 2 / page * page > page ? limit / 2 / page * page : page;
	tx_setup_buffers(snd);
	snd->zc_bufs = calloc(snd->depth, sizeof(*snd->zc_bufs));
	if (!snd->zc_bufs)
		err(1, "calloc");
}

uint32_t tx_zc_overlap(const struct zc_buf *z, const struct net_zc_range *r)
{
	int64_t a = (int32_t)(r->lo - z->first_id), b = (int32_t)(r->hi - z->first_id);

	if (a < 0)
		a = 0;
	if (b > (int64_t)z->n_ids - 1)
		b = (int64_t)z->n_ids - 1;
	return b >= a ? b - a + 1 : 0;
}

/* One completion, if one is queued: its range of ids counted against the buffers; 1, or 0. */
static int zc_take_one(struct sender *snd)
{
	struct net_zc_range r;
	int rc = net_take_zc_completion(snd->sock, &r);
	uint32_t ids;

	if (rc < 0)
		tx_die_sending(snd, "reading MSG_ZEROCOPY completions");
	if (rc == 0)
		return 0;
	ids = r.hi - r.lo + 1;
	for (unsigned i = 0; i < snd->depth; i++)
		snd->zc_bufs[i].pending -= tx_zc_overlap(&snd->zc_bufs[i], &r);
	snd->zc_sends += ids;
	if (r.copied)
		snd->zc_copied += ids;
	return 1;
}

/* Read every completion queued now; returns how many ranges there were. */
static int zc_take_completions(struct sender *snd)
{
	int n = 0;

	while (zc_take_one(snd))
		n++;
	return n;
}

static uint32_t zc_pending(const struct sender *snd, const struct zc_buf *z)
{
	uint32_t pending = 0;

	for (unsigned i = 0; i < snd->depth; i++)
		if (!z || z == &snd->zc_bufs[i])
			pending += snd->zc_bufs[i].pending;
	return pending;
}

/* Sleep until the error queue has something, for the rest of the -W deadline at most. */
static void zc_poll(struct sender *snd, uint64_t deadline)
{
	struct pollfd pfd = { .fd = snd->sock };
	uint64_t now = timing_now_ns();

	if (now >= deadline)
		errx(1, "the kernel completed no MSG_ZEROCOPY send within %ld s (-W) after %llu "
			"bytes", snd->wait_secs, (unsigned long long)snd->sent);
	/* POLLERR says the error queue has something; it needs no asking. */
	if (poll(&pfd, 1, (deadline - now + 999999) / 1000000) < 0 && errno != EINTR)
		err(1, "poll");
}

/*
 * A completion at a time, and none asked for once z is free: reading the
 * queue dry cost a failed recvmsg() a buffer, and zcc -u -m gso-zerocopy a
 * fifth more CPU than a sender that stops at the one it needs.
 */
void tx_zc_wait(struct sender *snd, const struct zc_buf *z)
{
	uint64_t deadline = 0;

	while (zc_pending(snd, z) > 0) {
		if (zc_take_one(snd))
			continue;
		if (!deadline)
			deadline = timing_now_ns() + snd->wait_secs * NSEC_PER_SEC;
		zc_poll(snd, deadline);
	}
}

/* Wait until at least one more of this stream's sends has completed. */
static void zc_wait_any(struct sender *snd)
{
	uint64_t deadline = timing_now_ns() + snd->wait_secs * NSEC_PER_SEC;

	while (zc_take_completions(snd) == 0 && zc_pending(snd, NULL) > 0)
		zc_poll(snd, deadline);
}

/* Refused for -W: the limits that refused it, named. */
static void __attribute__((noreturn)) zc_refused(const struct sender *snd)
{
	rlim_t limit = tx_pin_limit();
	char optmem[32] = "?";
	FILE *f = fopen("/proc/sys/net/core/optmem_max", "r");

	if (f && fscanf(f, "%31s", optmem) != 1)
		strcpy(optmem, "?");
	if (f)
		fclose(f);
	if (limit == RLIM_INFINITY)
		errx(1, "send: %s for %ld s (-W) after %llu bytes, with no MSG_ZEROCOPY send "
			"outstanding: its notification counts against net.core.optmem_max (%s "
			"bytes)", strerror(ENOBUFS), snd->wait_secs,
		     (unsigned long long)snd->sent, optmem);
	errx(1, "send: %s for %ld s (-W) after %llu bytes, with no MSG_ZEROCOPY send "
		"outstanding: its pages count against RLIMIT_MEMLOCK (ulimit -l: %llu KiB, "
		"shared by all of this user's processes), its notification against "
		"net.core.optmem_max (%s bytes)", strerror(ENOBUFS), snd->wait_secs,
	     (unsigned long long)snd->sent, (unsigned long long)limit / 1024, optmem);
}

/*
 * ENOBUFS with no send of this stream's outstanding: the pages are over
 * RLIMIT_MEMLOCK, which every process of this user shares (another stream of
 * -P, say), so wait for theirs to come back, -W at most from the first
 * refusal. Then the limits, named.
 */
static void zc_wait_for_others(struct sender *snd, uint64_t *deadline)
{
	struct pollfd pfd = { .fd = snd->sock };

	if (!*deadline)
		*deadline = timing_now_ns() + snd->wait_secs * NSEC_PER_SEC;
	if (timing_now_ns() >= *deadline)
		zc_refused(snd);
	if (poll(&pfd, 1, 1) < 0 && errno != EINTR)
		err(1, "poll");
}

void tx_zc_refused(struct sender *snd, uint64_t *refused_since)
{
	if (zc_pending(snd, NULL) > 0)
		zc_wait_any(snd);
	else
		zc_wait_for_others(snd, refused_since);
}

static void send_data_zerocopy(struct sender *snd, int fd, const struct tx_file *f)
{
	uint64_t refused_since = 0;

	for (uint64_t at = 0; at < f->size;) {
		struct zc_buf *z = &snd->zc_bufs[snd->next_buf];
		char *buf = snd->bufs[snd->next_buf];
		size_t n, off = 0;

		snd->next_buf = (snd->next_buf + 1) % snd->depth;
		tx_zc_wait(snd, z);
		n = tx_read_chunk(fd, buf, tx_chunk_at(snd, f, at), f, at);
		*z = (struct zc_buf){ .first_id = snd->next_id };
		while (off < n) {
			size_t len = n - off < snd->zc_send_max ? n - off : snd->zc_send_max;
			ssize_t m = send(snd->sock, buf + off, len, MSG_ZEROCOPY | MSG_NOSIGNAL);

			/*
			 * ENOBUFS: the socket's option memory is full of notifications,
			 * or the pages would pass RLIMIT_MEMLOCK; sends completing free
			 * both.
			 */
			if (m < 0 && errno == ENOBUFS) {
				tx_zc_refused(snd, &refused_since);
				continue;
			}
			refused_since = 0;
			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0)
				tx_die_sending(snd, "send");
			z->n_ids++;
			z->pending++;
			snd->next_id++;
			snd->sent += m;
			snd->calls++;
			off += m;
		}
		at += n;
	}
}

static void finish_zerocopy(struct sender *snd)
{
	tx_zc_wait(snd, NULL);
}

const struct send_mode tx_zerocopy = { .name = "zerocopy", .send_stream = tx_stream_send,
				.await_end = tx_stream_await_close, .setup = setup_zerocopy,
				       .connected = tx_zc_connected,
				       .send_data = send_data_zerocopy, .finish = finish_zerocopy,
				       .chunked = 1, .queued = 1, .io = NET_IO_SEND,
				       .counts_copies = 1, .errqueue = 1 };
