/*
 * tx: zcc's transmit modes, in three layers. Each family of modes is a file
 * of its own (copy.c: sendfile, send, write; splice.c; zerocopy.c; uring.c;
 * and for -u's datagrams udp.c) that defines its modes' rows. Above them,
 * table.c holds the table of rows and starts and ends a stream by the row's
 * hooks. Below them, sender.c holds the sender they share (its buffers, its
 * files, its failures and its pace at -R) and stream.c the TCP stream's
 * framing as the 2001 protocol has it: the loop count, each loop's file
 * count, each file's length and data (a datagram mode frames each datagram,
 * lib/dgram, in udp.c). A new mode is a file (or a function in one) and a
 * row of tx_modes[].
 *
 * Failures end the run with err(3) and a message that says how far it got.
 */
#ifndef ZC_TX_H
#define ZC_TX_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "../lib/dgram.h"
#include "../lib/net.h"
#include "../lib/uring.h"

/* -q: chunks in flight in the queued modes, each in a buffer of its own. */
#define TX_MAX_DEPTH 64

/*
 * The default -q keeps this many bytes in flight: 4 chunks of the default 1
 * MiB, 64 of 64 KiB. A fixed depth of 4 left 256 KiB in flight at -b 64k,
 * and zerocopy crawled at a tenth of the speed of -q 64 (docs/results.md).
 */
#define TX_DEFAULT_IN_FLIGHT (4 << 20)

/*
 * The files' open flags: a FIFO or a device must never block zcc or change
 * state by being opened, should one take a regular file's place.
 */
#define TX_OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY)

/*
 * -u: the most datagrams one call takes (UDP_SEGMENT's limit, UDP_MAX_SEGMENTS
 * in Linux before 6.9; sendmmsg and the uring modes batch as many).
 */
#define TX_DGRAM_BATCH_MAX 64

/* A file to send, and its size when it was scanned. */
struct tx_file {
	const char *path;
	uint64_t size;
};

struct sender;

/*
 * How long a stream lasts: -n's loops of the file set, or with -t the file
 * set round and round for a time, from the first byte, the last file whole.
 */
struct tx_plan {
	uint32_t loops;		/* -n */
	uint64_t ns;		/* -t: the time (loops unused); 0 */
};

/* -m A,B: the sender whose turn it is, before the first byte and before each file. */
typedef struct sender *(*tx_turn_fn)(void *arg);

/*
 * A way of sending: set-up before connecting, what to do with the socket
 * once connected, the whole stream (TCP's framing or the datagrams') and one
 * file's data, how the stream ends (a TCP half-close, or the datagrams'
 * END) and what to wait for after it; and the facts zcc and its tests need
 * about it.
 */
struct send_mode {
	const char *name;
	void (*setup)(struct sender *snd);
	void (*send_stream)(struct sender *snd, tx_turn_fn turn, void *arg, const struct tx_plan *plan,
			    const struct tx_file *files, size_t n_files, int debug);
	int (*await_end)(struct sender *snd, long wait_secs);
	void (*connected)(struct sender *snd);
	void (*send_data)(struct sender *snd, int fd, const struct tx_file *f);
	/* memory: the files read before the run, a file sent whole from them (its length, its data), freed. */
	void (*load)(struct sender *snd, const struct tx_file *files, size_t n_files);
	void (*send_file)(struct sender *snd, const struct tx_file *f);
	void (*unload)(struct sender *snd);
	void (*finish)(struct sender *snd);
	int chunked;		/* sends -b bytes at a time, from a buffer or a pipe of its own */
	int queued;		/* -q sets how many chunks, each in its buffer, are in flight */
	enum net_io io;		/* how the headers (and a copying mode's data) are written */
	int counts_copies;	/* the kernel says which sends it copied after all */
	int errqueue;		/* MSG_ZEROCOPY: its completions come on the socket's error queue */
	unsigned uring_op;	/* the uring modes' send: IORING_OP_SEND or _SEND_ZC; else 0 */
	int datagram;		/* -u: sends datagrams, a batch of one file's at a time */
	int gso;		/* -u: a batch is one UDP_SEGMENT send, cut by the kernel */
	/* -u: the n datagrams of a batch, laid end to end in buffer `bufno` (bytes in all). */
	void (*send_datagrams)(struct sender *snd, unsigned bufno, size_t bytes, unsigned n);
};

/* Every mode, in the order -m's lists give them; NULL ends the table. */
extern const struct send_mode *const tx_modes[];

/*
 * RLIMIT_MEMLOCK as it applies to pinned pages (MSG_ZEROCOPY's pages in
 * flight, io_uring's registered buffers); RLIM_INFINITY where it does not
 * (CAP_IPC_LOCK).
 */
rlim_t tx_pin_limit(void);

/*
 * The default -q: TX_DEFAULT_IN_FLIGHT / bufsize chunks, at most TX_MAX_DEPTH,
 * and no more than the buffers of all streams, pinned, fit in half of
 * pin_limit (the rest is for the rings and whatever else the user has
 * locked: all of it, four streams' 2 x 1 MiB under 8 MiB, failed); at least 1.
 */
unsigned tx_default_depth(size_t bufsize, unsigned streams, rlim_t pin_limit);

/*
 * The buffers every stream holds, depth x bufsize x streams (bytes), are
 * allocated (and in the queued modes pinned) before anything is sent: a
 * chunked mode's must fit in half of the host's memory (host bytes; 0:
 * unknown, and they fit). 1 if they do.
 */
int tx_buffers_fit(const struct send_mode *mode, uint64_t bytes, uint64_t host);

/* The mode of that name, among the datagram modes (-u) or the stream ones; or NULL. */
const struct send_mode *tx_find_mode(const char *name, int datagram);

/* The modes' names, "a, b or c": all of one kind (-u's or TCP's), or the queued ones only. */
const char *tx_mode_names(int datagram, int queued_only);

/* What each buffer waits for: zerocopy, the ids of its sends; uring, its requests. */
struct zc_buf {
	uint32_t first_id;	/* zerocopy: of the sends made from this buffer */
	uint32_t n_ids;
	uint32_t pending;	/* of those, not yet completed */
};

/*
 * One stream's sending end (zcs -u's record of one is its struct udp_peer):
 * the connection, what has gone down it so far, and the mode's own state.
 */
struct sender {
	int sock;
	const struct send_mode *mode;
	long wait_secs;		/* -W: the longest wait for the kernel or the peer */
	uint64_t sent;
	char **bufs;		/* depth buffers of bufsize bytes */
	size_t bufsize;
	unsigned depth;
	int pipe[2];		/* splice */
	struct zc_buf *zc_bufs;	/* zerocopy, uring: what each buffer waits for */
	unsigned next_buf;	/* the buffer the next chunk goes in */
	uint32_t next_id;	/* zerocopy: the id the next MSG_ZEROCOPY send gets */
	size_t zc_send_max;	/* zerocopy: the most one send may pin (RLIMIT_MEMLOCK) */
	struct uring ring;	/* uring, uring-zc */
	uint64_t zc_sends, zc_copied;	/* sends the kernel completed, and copied */
	/* -u: */
	size_t dgram_bytes;	/* -l: each datagram's payload, the header included */
	unsigned batch;		/* datagrams a batch at most */
	uint32_t stream_id;	/* at random: zcs tells this stream's datagrams by it */
	uint32_t loops, files;	/* for the END */
	uint64_t files_sent;	/* whole files sent (the stream's; -m A,B: the arms' together) */
	/* memory: each of the files (mem_files[i]) as read, and its size then. */
	const struct tx_file *mem_files;
	char **mem;
	uint64_t *mem_sizes;
	size_t n_mem;
	uint64_t datagrams, calls;	/* DATA datagrams sent, and the calls that sent them */
	uint64_t rate;		/* -R, this stream's share, in bytes/sec; 0 */
	int debug;
	uint64_t paced_from_ns, paced_bytes;
	struct mmsghdr *msgs;	/* sendmmsg: a batch's */
	struct iovec *iovs;	/* a batch's: the slices it reads, then sendmmsg's datagrams */
	unsigned results_due;	/* uring: a batch's sends not yet completed */
	int acked;		/* zcs answered the END */
	uint64_t bad_acks;	/* ACKs that claimed more than was sent: ignored */
	uint64_t acked_datagrams, acked_bytes;	/* what zcs says it received */
	/* The file set as it was set up, and each file's descriptor once it is open (-1): tx_open_file. */
	const struct tx_file *kept_of;
	size_t n_kept;
	int *kept_fds;
	int keeps;		/* 0 once the process ran out of descriptors: none is kept */
	/* A stream's await_end with keep_answer: what zcs sent before its close, TX_ANSWER_MAX at most. */
	int keep_answer;
	unsigned char *answer;
	size_t answer_len, answer_cap;
};

/* The most of zcs's answer await_end keeps (a turns answer of 2^20 slots is 52 MiB). */
#define TX_ANSWER_MAX (64u << 20)

/* What zcc's options ask of a sender. */
struct tx_config {
	size_t bufsize;		/* -b */
	unsigned depth;		/* -q: 1 where the mode is not queued */
	long wait_secs;		/* -W */
	size_t dgram_bytes;	/* -l: a datagram mode's datagrams (0 for a stream mode) */
	uint64_t rate;		/* -R: this stream's share, bytes/sec; 0: not paced */
	int debug;		/* -d: say the pace set */
	const struct tx_file *files;	/* the file set (-m memory reads it as it is set up) */
	size_t n_files;
};

/*
 * The mode's buffers, pipe or ring, before anything is connected. A mode the
 * kernel cannot do fails here.
 */
void tx_sender_setup(struct sender *snd, const struct send_mode *mode, const struct tx_config *c);
/* Once snd->sock is connected: the pace (-R) and the mode's socket options. */
void tx_sender_connected(struct sender *snd);

/*
 * -R, whatever the mode. A stream is paced by the kernel, SO_MAX_PACING_RATE
 * set as it is connected; datagrams by the sender itself: UDP has no flow
 * control, and the kernel paces it only under the fq qdisc. tx_pace, before
 * each batch of `bytes`, sleeps until they are due (a stream mode's returns
 * at once).
 */
void tx_pace(struct sender *snd, size_t bytes);
/* Whatever the mode set up, and the socket. */
void tx_sender_close(struct sender *snd);

/*
 * The whole stream: loops, then each loop's file count and files, each its
 * length as it is now and its data. debug > 1 says each file on stderr.
 * With -t (plan->ns), the loop count is TX_TIMED_LOOPS and each loop's file
 * count is chosen as it starts, so that a loop lasts about -t's
 * TX_TIMED_SLICES-th part (one file at least); once the time is up, the
 * loops left go as empty ones, 4 bytes each.
 */
#define TX_TIMED_LOOPS 65536
#define TX_TIMED_SLICES 4096
/*
 * With turn (zcc's turns), the stream is sent by whichever sender turn(arg)
 * gives before the first byte and before each file (the length and data of
 * a file go by one sender; the loop and file counts by the one that sent the
 * file before); without (NULL), by snd throughout. The senders share the
 * socket, and each one's sent counts the whole stream from the moment it is
 * handed on: turn copies it from the sender before. A datagram mode takes
 * no turns.
 */
void tx_send_stream(struct sender *snd, tx_turn_fn turn, void *arg, const struct tx_plan *plan,
		    const struct tx_file *files, size_t n_files, int debug);

/*
 * Half-close, wait for the mode's last completions (a zero-copy mode's
 * buffers back from the kernel), and wait for the peer to close too, for
 * wait_secs at most, one deadline whatever the peer sends meanwhile: 0 if
 * it closed, 1 if not. A datagram mode sends its END instead of closing,
 * again and again, until zcs's ACK comes.
 */
int tx_await_close(struct sender *snd, long wait_secs);

/*
 * A file as it is now: its descriptor and (in now) its size. The first time
 * a file of the set is sent it is opened without blocking (it might have
 * become a FIFO), checked to be still regular and under 4 GiB, set to block
 * again (io_uring needs that to read a file whose pages are not cached), and
 * kept open for the rest of the stream; each later time takes its size
 * again (fstat), and a file deleted or renamed over since (no links left) is
 * opened again by its name. Then, after its data: its size taken again,
 * ending the run if it changed meanwhile. A file not of the set, or any once
 * the process has no descriptor to spare, is opened and closed each time.
 */
int tx_open_file(struct sender *snd, const struct tx_file *f, struct tx_file *now);
void tx_close_file(struct sender *snd, const struct tx_file *f, int fd, const struct tx_file *now);
/* -dd: the file a loop is sending now, on stderr. */
void tx_say_file(uint32_t loop, const struct tx_file *f);

/* For the modes' files: the shared steps and failures. */
void tx_setup_buffers(struct sender *snd);
void tx_send_bytes(struct sender *snd, const void *buf, size_t len);
/* A file's length, as the stream has it before the file's data. */
void tx_send_length(struct sender *snd, uint64_t size);
/* pread(): a file kept open has no position of its own to read from. */
size_t tx_read_chunk(int fd, char *buf, size_t len, const struct tx_file *f, uint64_t at);
size_t tx_chunk_at(const struct sender *snd, const struct tx_file *f, uint64_t at);
void tx_die_sending(const struct sender *snd, const char *what) __attribute__((noreturn));
void tx_die_shrunk(const struct tx_file *f, uint64_t at) __attribute__((noreturn));

/* How many ids of [lo, hi] belong to buffer z. Ids wrap at 2^32; a range never spans half. */
uint32_t tx_zc_overlap(const struct zc_buf *z, const struct net_zc_range *r);

/* MSG_ZEROCOPY's shared steps (zerocopy.c): SO_ZEROCOPY, or the end of the run. */
void tx_zc_connected(struct sender *snd);
/* Wait until the kernel has completed every send made from buffer z (all, if z is NULL). */
void tx_zc_wait(struct sender *snd, const struct zc_buf *z);
/* A send refused with ENOBUFS: wait for some of the sends in flight, or end the run (-W). */
void tx_zc_refused(struct sender *snd, uint64_t *refused_since);

/*
 * io_uring's (uring.c): the ring of `entries`, with the send the mode's row
 * names (SEND, or SEND_ZC taking zc_flags) and, where read_fixed, READ_FIXED;
 * a kernel that lacks one ends the run.
 */
void tx_uring_open(struct sender *snd, unsigned entries, int read_fixed, unsigned zc_flags);
/* The mode's send is SEND_ZC. */
int tx_uring_is_zc(const struct sender *snd);
/* The next completion, waiting -W at most (then the end of the run). */
void tx_uring_wait_cqe(struct sender *snd, struct io_uring_cqe *cqe);

/* stream.c: a TCP stream's send_stream and await_end (tx_send_stream, tx_await_close). */
void tx_stream_send(struct sender *snd, tx_turn_fn turn, void *arg, const struct tx_plan *plan,
		    const struct tx_file *files, size_t n_files, int debug);
/*
 * -t: the plan's time is up, counted from start_ns. A stream paced by the
 * kernel (-R) ends once the rate's bytes for the time have left the sender
 * (snd->sent counted from sent_at_start): a socket buffer's worth may still
 * be on its way then, which at a low rate is seconds.
 */
int tx_time_up(const struct sender *snd, const struct tx_plan *plan, uint64_t start_ns,
	       uint64_t sent_at_start);
int tx_stream_await_close(struct sender *snd, long wait_secs);

/* The rows the families define. */
extern const struct send_mode tx_memory;
extern const struct send_mode tx_sendfile, tx_send, tx_write, tx_splice, tx_zerocopy, tx_uring,
	tx_uring_zc;
extern const struct send_mode tx_dgram_sendmsg, tx_dgram_sendmmsg, tx_dgram_gso,
	tx_dgram_gso_zerocopy, tx_dgram_uring, tx_dgram_uring_zc;

#endif
