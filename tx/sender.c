#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../lib/opt.h"
#include "../lib/proto.h"
#include "../lib/timing.h"
#include "tx.h"

int tx_time_up(const struct sender *snd, const struct tx_plan *plan, uint64_t start_ns,
	       uint64_t sent_at_start)
{
	if (!plan->ns)
		return 0;
	if (snd->rate && !snd->mode->datagram && snd->sent - sent_at_start >= (double)snd->rate * plan->ns / NSEC_PER_SEC)
		return 1;
	return timing_now_ns() - start_ns >= plan->ns;
}

/* -R: how far behind its schedule a paced datagram sender may be and still catch up. */
#define PACE_SLACK_NS 1000000

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

void tx_sender_setup(struct sender *snd, const struct send_mode *mode, const struct tx_config *c)
{
	*snd = (struct sender){ .sock = -1, .pipe = { -1, -1 }, .ring = { .fd = -1 },
				.mode = mode, .bufsize = c->bufsize,
				.depth = mode->queued ? c->depth : 1, .wait_secs = c->wait_secs,
				.dgram_bytes = mode->datagram ? c->dgram_bytes : 0, .rate = c->rate,
				.debug = c->debug, .kept_of = c->files, .n_kept = c->n_files, .keeps = 1 };
	if (mode->setup)
		mode->setup(snd);
	if (mode->load)
		mode->load(snd, c->files, c->n_files);
}

void tx_sender_connected(struct sender *snd)
{
	if (snd->rate && !snd->mode->datagram)
		net_set_pacing(snd->sock, snd->rate, snd->debug);
	if (snd->mode->connected)
		snd->mode->connected(snd);
}

/*
 * A sender more than PACE_SLACK_NS behind (stopped, or starved of its CPU)
 * does not make the time up: the schedule moves on, and the summary's rate
 * shows what was lost. Made up, it would be a burst at full speed that the
 * receiver's buffer cannot hold (a 0.3 s stop at 64 MiB/s lost 2.4% of gso's
 * datagrams and 5.5% of uring-zc's), counted as sent at the rate.
 */
void tx_pace(struct sender *snd, size_t bytes)
{
	uint64_t now, due;

	if (!snd->rate || !snd->mode->datagram)
		return;
	now = timing_now_ns();
	if (!snd->paced_from_ns)
		snd->paced_from_ns = now;
	due = snd->paced_from_ns +
	      (uint64_t)((unsigned __int128)snd->paced_bytes * NSEC_PER_SEC / snd->rate);
	if (now > due + PACE_SLACK_NS) {
		snd->paced_from_ns += now - due - PACE_SLACK_NS;
		due = now - PACE_SLACK_NS;
	}
	snd->paced_bytes += bytes;
	if (due > now) {
		struct timespec ts = { .tv_sec = due / NSEC_PER_SEC, .tv_nsec = due % NSEC_PER_SEC };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
}

/* A failed write to the socket ends the run, saying how far it got. */
void tx_die_sending(const struct sender *snd, const char *what)
{
	/* A datagram socket hears of a closed port from the ICMP error its datagrams drew. */
	if (errno == ECONNREFUSED && snd->mode->datagram)
		errx(1, "nothing receives datagrams at the server's port (zcs -u?): the host "
			"refused them after %llu bytes (%s)", (unsigned long long)snd->sent,
		     strerror(errno));
	/* The path narrowed mid-run, and the datagrams may not be fragmented (IP_PMTUDISC_DO). */
	if (errno == EMSGSIZE && snd->mode->datagram) {
		int ip_header = 0, mtu = net_path_mtu(snd->sock, &ip_header);

		errx(1, "%s after %llu bytes: the path's MTU is now %d (IP_MTU), and a %zu-byte "
			"datagram no longer fits it unfragmented: -l %d at most", what,
		     (unsigned long long)snd->sent, mtu, snd->dgram_bytes, mtu - ip_header - 8);
	}
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

static void send_bytes_as(struct sender *snd, enum net_io io, const void *buf, size_t len)
{
	size_t done;
	int rc = net_write_full(snd->sock, io, buf, len, &done, &snd->calls);

	snd->sent += done;
	if (rc < 0)
		tx_die_sending(snd, io == NET_IO_WRITE ? "write" : "send");
}

void tx_send_bytes(struct sender *snd, const void *buf, size_t len)
{
	send_bytes_as(snd, snd->mode->io, buf, len);
}

/*
 * A file's length: where the mode sends with send(), with MSG_MORE ahead of
 * data, so that the 4 bytes go in the data's first segment rather than
 * trying to go alone (zcc -D sent each in a segment of its own). write()
 * has no flags: -m write's lengths are written as in 2001.
 */
void tx_send_length(struct sender *snd, uint64_t size)
{
	unsigned char b[PROTO_U32_BYTES];

	proto_put_u32(b, size);
	send_bytes_as(snd, snd->mode->io == NET_IO_SEND && size > 0 ? NET_IO_SEND_MORE : snd->mode->io,
		      b, sizeof(b));
}

/* read() of a chunk, or the end of the run if the file is shorter than it was. */
size_t tx_read_chunk(int fd, char *buf, size_t len, const struct tx_file *f, uint64_t at)
{
	ssize_t n;

	while ((n = pread(fd, buf, len, at)) < 0 && errno == EINTR)
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

/* The files kept open, closed. */
static void forget_files(struct sender *snd)
{
	if (!snd->kept_fds)
		return;
	for (size_t k = 0; k < snd->n_kept; k++)
		if (snd->kept_fds[k] >= 0)
			close(snd->kept_fds[k]);
	munmap(snd->kept_fds, snd->n_kept * sizeof(*snd->kept_fds));
	snd->kept_fds = NULL;
}

/* Whatever the mode set up, the files kept open, and the socket. */
void tx_sender_close(struct sender *snd)
{
	if (snd->mode->unload)
		snd->mode->unload(snd);
	for (unsigned i = 0; snd->bufs && i < snd->depth; i++)
		free(snd->bufs[i]);
	free(snd->bufs);
	free(snd->zc_bufs);
	free(snd->msgs);
	free(snd->iovs);
	free(snd->answer);
	uring_close(&snd->ring);
	for (int i = 0; i < 2; i++)
		if (snd->pipe[i] >= 0)
			close(snd->pipe[i]);
	forget_files(snd);
	close(snd->sock);
}

/* The file's size as it is now, ending the run if it is no longer a file zcc can send. */
static struct stat file_now(int fd, const struct tx_file *f)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		err(1, "fstat %s", f->path);
	if (!S_ISREG(st.st_mode))
		errx(1, "%s: no longer a regular file", f->path);
	if ((uint64_t)st.st_size > UINT32_MAX)
		errx(1, "%s: grew to %lld bytes, too large for the protocol", f->path,
		     (long long)st.st_size);
	return st;
}

/* The slot in kept_fds of a file of the set, or NULL for one not of it or none kept. */
static int *kept_slot(struct sender *snd, const struct tx_file *f)
{
	size_t i = f - snd->kept_of;

	if (!snd->keeps || !snd->kept_of || f < snd->kept_of || i >= snd->n_kept)
		return NULL;
	/*
	 * mmap, not malloc: -P's streams keep their senders in memory shared
	 * with zcc, where LeakSanitizer finds no pointer, and a stream that
	 * ends on an error would leave it a leak to report (SANITIZE=1).
	 */
	if (!snd->kept_fds) {
		snd->kept_fds = mmap(NULL, snd->n_kept * sizeof(*snd->kept_fds), PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (snd->kept_fds == MAP_FAILED)
			err(1, "mmap");
		for (size_t k = 0; k < snd->n_kept; k++)
			snd->kept_fds[k] = -1;
	}
	return &snd->kept_fds[i];
}

int tx_open_file(struct sender *snd, const struct tx_file *f, struct tx_file *now)
{
	int *kept = kept_slot(snd, f), fd;
	struct stat st;

	if (kept && *kept >= 0) {
		st = file_now(*kept, f);
		if (st.st_nlink > 0) {
			*now = (struct tx_file){ .path = f->path, .size = st.st_size };
			return *kept;
		}
		close(*kept);
		*kept = -1;
	}
	fd = open(f->path, TX_OPEN_FLAGS | O_CLOEXEC);
	/* Out of descriptors: none kept from here on, and the ones held given back. */
	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && kept) {
		snd->keeps = 0;
		forget_files(snd);
		kept = NULL;
		fd = open(f->path, TX_OPEN_FLAGS | O_CLOEXEC);
	}
	if (fd < 0)
		err(1, "open %s", f->path);
	st = file_now(fd, f);
	if (fcntl(fd, F_SETFL, O_RDONLY) < 0)
		err(1, "fcntl %s", f->path);
	if (kept)
		*kept = fd;
	*now = (struct tx_file){ .path = f->path, .size = st.st_size };
	return fd;
}

void tx_close_file(struct sender *snd, const struct tx_file *f, int fd, const struct tx_file *now)
{
	int *kept = kept_slot(snd, f);
	struct stat st;

	if (fstat(fd, &st) < 0)
		err(1, "fstat %s", now->path);
	if ((uint64_t)st.st_size != now->size)
		errx(1, "%s: changed size while being sent (%llu bytes, now %lld)", now->path,
		     (unsigned long long)now->size, (long long)st.st_size);
	if (!kept || *kept != fd)
		close(fd);
}

void tx_say_file(uint32_t loop, const struct tx_file *f)
{
	fprintf(stderr, "%s: loop %u: %s, %llu bytes\n", program_invocation_short_name, loop + 1,
		f->path, (unsigned long long)f->size);
}

