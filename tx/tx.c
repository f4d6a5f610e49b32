#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../lib/opt.h"
#include "../lib/proto.h"
#include "../lib/timing.h"
#include "tx.h"

/* Whether this process may pin pages beyond RLIMIT_MEMLOCK (CAP_IPC_LOCK). */
static int can_lock_beyond_rlimit(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	return d[CAP_IPC_LOCK / 32].effective >> (CAP_IPC_LOCK % 32) & 1;
}

rlim_t tx_pin_limit(void)
{
	struct rlimit rl;

	if (can_lock_beyond_rlimit() || getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return RLIM_INFINITY;
	return rl.rlim_cur;
}

unsigned tx_default_depth(size_t bufsize, unsigned streams, rlim_t pin_limit)
{
	size_t page = sysconf(_SC_PAGESIZE), pinned = (bufsize + page - 1) / page * page;
	uint64_t depth = TX_DEFAULT_IN_FLIGHT / bufsize;

	if (depth > TX_MAX_DEPTH)
		depth = TX_MAX_DEPTH;
	if (pin_limit != RLIM_INFINITY && depth > pin_limit / 2 / pinned / streams)
		depth = pin_limit / 2 / pinned / streams;
	return depth > 0 ? depth : 1;
}

int tx_buffers_fit(const struct send_mode *mode, uint64_t bytes, uint64_t host)
{
	return !mode->chunked || host == 0 || bytes <= host / 2;
}

const struct send_mode *const tx_modes[] = {
	&tx_sendfile, &tx_send, &tx_write, &tx_splice, &tx_zerocopy, &tx_uring, &tx_uring_zc,
	&tx_dgram_sendmsg, &tx_dgram_sendmmsg, &tx_dgram_gso, &tx_dgram_gso_zerocopy,
	&tx_dgram_uring, &tx_dgram_uring_zc, NULL,
};

const struct send_mode *tx_find_mode(const char *name, int datagram)
{
	for (const struct send_mode *const *m = tx_modes; *m; m++)
		if (strcmp(name, (*m)->name) == 0 && (*m)->datagram == !!datagram)
			return *m;
	return NULL;
}

const char *tx_mode_names(int datagram, int queued_only)
{
	static char names[2][2][256];
	char *out = names[!!datagram][!!queued_only];
	const char *list[16];
	size_t n = 0;

	if (!out[0]) {
		for (const struct send_mode *const *m = tx_modes; *m && n < 16; m++)
			if ((*m)->datagram == !!datagram && (!queued_only || (*m)->queued))
				list[n++] = (*m)->name;
		opt_join_names(out, sizeof(names[0][0]), list, n);
	}
	return out;
}

void tx_sender_setup(struct sender *snd, const struct send_mode *mode, size_t bufsize,
		     unsigned depth, long wait_secs, size_t dgram_bytes, uint64_t rate)
{
	*snd = (struct sender){ .sock = -1, .pipe = { -1, -1 }, .ring = { .fd = -1 },
				.mode = mode, .bufsize = bufsize, .depth = mode->queued ? depth : 1,
				.wait_secs = wait_secs, .dgram_bytes = dgram_bytes, .rate = rate };
	if (mode->setup)
		mode->setup(snd);
}

void tx_sender_connected(struct sender *snd)
{
	if (snd->mode->connected)
		snd->mode->connected(snd);
}

/* A failed write to the socket ends the run, saying how far it got. */
void tx_die_sending(const struct sender *snd, const char *what)
{
	/* A datagram socket hears of a closed port from the ICMP error its datagrams drew. */
	if (errno == ECONNREFUSED && snd->mode->datagram)
		errx(1, "nothing receives datagrams at the server's port (zcs -u?): the host "
			"refused them after %llu bytes (%s)", (unsigned long long)snd->sent,
		     strerror(errno));
	/* A socket the peer reset before shutdown() is no longer connected: the same reset. */
	if (errno == ENOTCONN)
		errno = ECONNRESET;
	if (errno == EPIPE || errno == ECONNRESET)
		errx(1, "connection %s after %llu bytes: %s",
		     errno == ECONNRESET ? "reset" : "closed", (unsigned long long)snd->sent,
		     strerror(errno));
	/* SO_SNDTIMEO ran out: the receiver has taken nothing for -W seconds. */
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		errx(1, "zcs took no data for %ld s (-W) after %llu bytes: it has stopped reading",
		     snd->wait_secs, (unsigned long long)snd->sent);
	err(1, "%s after %llu bytes", what, (unsigned long long)snd->sent);
}

void tx_die_shrunk(const struct tx_file *f, uint64_t at)
{
	errx(1, "%s: shrank while being sent (%llu of %llu bytes)", f->path,
	     (unsigned long long)at, (unsigned long long)f->size);
}

void tx_send_bytes(struct sender *snd, const void *buf, size_t len)
{
	size_t done;
	int rc = net_write_full(snd->sock, snd->mode->io, buf, len, &done);

	snd->sent += done;
	if (rc < 0)
		tx_die_sending(snd, snd->mode->io == NET_IO_WRITE ? "write" : "send");
}

static void send_u32(struct sender *snd, uint32_t v)
{
	unsigned char b[PROTO_U32_BYTES];

	proto_put_u32(b, v);
	tx_send_bytes(snd, b, sizeof(b));
}

/* read() of a chunk, or the end of the run if the file is shorter than it was. */
size_t tx_read_chunk(int fd, char *buf, size_t len, const struct tx_file *f, uint64_t at)
{
	ssize_t n;

	while ((n = read(fd, buf, len)) < 0 && errno == EINTR)
		;
	if (n < 0)
		err(1, "read %s", f->path);
	if (n == 0)
		tx_die_shrunk(f, at);
	return n;
}

size_t tx_chunk_at(const struct sender *snd, const struct tx_file *f, uint64_t at)
{
	return f->size - at < snd->bufsize ? f->size - at : snd->bufsize;
}

/* The depth buffers, page-aligned (MSG_ZEROCOPY pins pages; io_uring registers them). */
void tx_setup_buffers(struct sender *snd)
{
	snd->bufs = calloc(snd->depth, sizeof(*snd->bufs));
	if (!snd->bufs)
		err(1, "calloc");
	for (unsigned i = 0; i < snd->depth; i++)
		if (posix_memalign((void **)&snd->bufs[i], sysconf(_SC_PAGESIZE), snd->bufsize) != 0)
			errx(1, "cannot allocate %u buffers of %zu bytes", snd->depth, snd->bufsize);
}

/* Whatever the mode set up, and the socket. */
void tx_sender_close(struct sender *snd)
{
	for (unsigned i = 0; snd->bufs && i < snd->depth; i++)
		free(snd->bufs[i]);
	free(snd->bufs);
	free(snd->slots);
	free(snd->msgs);
	free(snd->iovs);
	uring_close(&snd->ring);
	for (int i = 0; i < 2; i++)
		if (snd->pipe[i] >= 0)
			close(snd->pipe[i]);
	close(snd->sock);
}

int tx_open_file(const struct tx_file *f, struct tx_file *now)
{
	struct stat st;
	int fd = open(f->path, TX_OPEN_FLAGS);

	if (fd < 0)
		err(1, "open %s", f->path);
	if (fstat(fd, &st) < 0)
		err(1, "fstat %s", f->path);
	if (!S_ISREG(st.st_mode))
		errx(1, "%s: no longer a regular file", f->path);
	if (fcntl(fd, F_SETFL, O_RDONLY) < 0)
		err(1, "fcntl %s", f->path);
	if ((uint64_t)st.st_size > UINT32_MAX)
		errx(1, "%s: grew to %lld bytes, too large for the protocol", f->path,
		     (long long)st.st_size);
	*now = (struct tx_file){ .path = f->path, .size = st.st_size };
	return fd;
}

void tx_close_file(int fd, const struct tx_file *now)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		err(1, "fstat %s", now->path);
	if ((uint64_t)st.st_size != now->size)
		errx(1, "%s: changed size while being sent (%llu bytes, now %lld)", now->path,
		     (unsigned long long)now->size, (long long)st.st_size);
	close(fd);
}

void tx_say_file(uint32_t loop, const struct tx_file *f)
{
	fprintf(stderr, "%s: loop %u: %s, %llu bytes\n", program_invocation_short_name, loop + 1,
		f->path, (unsigned long long)f->size);
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
int tx_await_close(struct sender *snd, long wait_secs)
{
	struct pollfd pfd = { .fd = snd->sock, .events = POLLIN };
	uint64_t deadline;
	char sink[256];

	if (snd->mode->datagram)
		return tx_await_ack(snd, wait_secs);
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

void tx_send_stream(struct sender *snd, uint32_t loops, const struct tx_file *files,
		    size_t n_files, int debug)
{
	tx_send_stream_turns(snd, NULL, NULL, loops, files, n_files, debug);
}

void tx_send_stream_turns(struct sender *snd, tx_turn_fn turn, void *arg, uint32_t loops,
			  const struct tx_file *files, size_t n_files, int debug)
{
	if (snd->mode->datagram) {
		tx_send_datagrams(snd, loops, files, n_files, debug);
		return;
	}
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
