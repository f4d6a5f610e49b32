/*
 * proto: the zc wire format, and a receiver's decoder of it.
 *
 * The stream is n_loops, then per loop n_files, then per file its length and
 * that many bytes of data. Every integer is an unsigned 32-bit big-endian value,
 * as the 2001 programs wrote it.
 */
#ifndef ZC_PROTO_H
#define ZC_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROTO_U32_BYTES 4

void proto_put_u32(unsigned char out[PROTO_U32_BYTES], uint32_t v);
uint32_t proto_get_u32(const unsigned char in[PROTO_U32_BYTES]);
/* A 64-bit value as two of them, the high one first (the datagrams' and the turns' own). */
void proto_put_u64(unsigned char out[2 * PROTO_U32_BYTES], uint64_t v);
uint64_t proto_get_u64(const unsigned char in[2 * PROTO_U32_BYTES]);

enum proto_rx_state {
	PROTO_RX_LOOPS,
	PROTO_RX_FILES,
	PROTO_RX_LENGTH,
	PROTO_RX_DATA,
	PROTO_RX_DONE,
};

/*
 * A receiver's view of the stream, fed with whatever read() returned. It keeps
 * counts only and never allocates by them, so any byte sequence is safe to feed.
 */
struct proto_rx {
	enum proto_rx_state state;
	unsigned char hdr[PROTO_U32_BYTES];
	unsigned hdr_have;
	uint32_t loops_left;	/* including the loop in progress */
	uint32_t files_left;	/* in the loop in progress, including the file in progress */
	uint32_t data_left;	/* of the file in progress */
	uint64_t files_done;
	uint64_t extra_bytes;	/* received after the stream was complete */
	/*
	 * With keep, the first of those, kept while they may be what the
	 * caller waits for (the turns' slot table), and no more than it can
	 * be: keep says, of what is kept, how many bytes it must grow to
	 * before it is asked again (asked first with none), or that no more
	 * is kept (that many or fewer: 0, not a table; as many, whole).
	 */
	size_t (*keep)(const unsigned char *kept, size_t len, void *arg);
	void *keep_arg;
	unsigned char *after;
	size_t after_len, after_want;
	int after_done;
};

void proto_rx_init(struct proto_rx *rx);
/* What the decoder keeps (keep), freed. */
void proto_rx_free(struct proto_rx *rx);
void proto_rx_feed(struct proto_rx *rx, const unsigned char *buf, size_t len);
/*
 * For a receiver that discards file data unseen: how many bytes of file data
 * come next (0 while a header is due or after the end), how many header bytes
 * (1 to 4; 0 in file data or after the end), and counting len <= data due as
 * received without feeding them.
 */
uint32_t proto_rx_data_due(const struct proto_rx *rx);
unsigned proto_rx_header_due(const struct proto_rx *rx);
void proto_rx_skip(struct proto_rx *rx, size_t len);

/* "header" or "file data" while incomplete; NULL once the stream is complete. */
const char *proto_rx_waiting_for(const struct proto_rx *rx);

/* Bytes on the wire for n_loops passes over n_files files of data_per_loop bytes in all. */
uint64_t proto_stream_bytes(uint32_t n_loops, size_t n_files, uint64_t data_per_loop);

#endif
