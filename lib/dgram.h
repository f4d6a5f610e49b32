/*
 * dgram: zc's datagram format (zcc -u, zcs -u), and a receiver's count of one
 * sender's datagrams: how many came, how many were lost, duplicated or came
 * out of order.
 *
 * Every datagram starts with a header of DGRAM_HEADER_BYTES, its integers
 * big-endian as in the TCP stream:
 *
 *	 0  magic   u32  DGRAM_MAGIC
 *	 4  kind    u32  DGRAM_DATA, DGRAM_END or DGRAM_ACK
 *	 8  stream  u32  the sender's id, chosen at random for each stream
 *	12  loop    u32  DATA: the pass over the file set, from 0; END: the loops
 *	16  seq     u64  DATA: the datagram's number, from 0; END: DATA datagrams
 *	                 sent; ACK: distinct DATA datagrams received
 *	24  file    u32  DATA: the file's place in the set, from 0; END: the files
 *	28  offset  u32  DATA: where in the file its slice starts
 *	32  DATA: the file's bytes from offset, as many as the datagram holds;
 *	    END and ACK: bytes u64, the payload bytes of the DATA datagrams
 *	    sent (END) or received (ACK), headers included
 *
 * A file's slices follow each other, the last one short (a file of 0 bytes
 * is one DATA datagram of the header alone). END follows the last DATA, sent
 * again until zcs answers with an ACK of the same stream.
 */
#ifndef ZC_DGRAM_H
#define ZC_DGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "marks.h"

/* UDP's socket options, where older headers lack them: GSO's (4.18) and GRO's (5.0). */
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define DGRAM_MAGIC 0x7a634447u /* "zcDG" */
#define DGRAM_HEADER_BYTES 32
#define DGRAM_END_BYTES (DGRAM_HEADER_BYTES + 8)

/*
 * The most payload a UDP datagram over IPv4 can carry: 65535 less the IP
 * header (20) and the UDP header (8). IPv6's limit is 65527; zc keeps to one.
 */
#define DGRAM_MAX_BYTES 65507

/* DATA datagrams are numbered below this: 2^63, more than any run sends. */
#define DGRAM_MAX_SEQ (1ULL << 63)

enum dgram_kind { DGRAM_DATA = 1, DGRAM_END = 2, DGRAM_ACK = 3 };

struct dgram_header {
	uint32_t kind;
	uint32_t stream;
	uint32_t loop;
	uint64_t seq;
	uint32_t file;
	uint32_t offset;
};

/* The DATA datagrams of dgram_bytes each a file of file_bytes makes: at least one. */
uint64_t dgram_file_datagrams(uint64_t file_bytes, size_t dgram_bytes);

void dgram_put_header(unsigned char out[DGRAM_HEADER_BYTES], const struct dgram_header *h);

/* END or ACK: the header and its byte count. */
void dgram_put_end(unsigned char out[DGRAM_END_BYTES], const struct dgram_header *h,
		   uint64_t bytes);

/*
 * A datagram of len bytes: 0 and *h (and *bytes for END and ACK, when bytes is
 * not NULL), or -1 when it is not one of ours: too short for its kind, a
 * wrong magic, an unknown kind, or a DATA number of DGRAM_MAX_SEQ or more.
 */
int dgram_parse(const unsigned char *buf, size_t len, struct dgram_header *h, uint64_t *bytes);

/*
 * The sequence numbers behind the highest seen that a receiver remembers:
 * within them, a datagram that comes again is a duplicate; further back,
 * one that comes late is counted out of order (and taken as new).
 */
#define DGRAM_WINDOW 65536

/* One sender's DATA datagrams, as they come. */
struct dgram_count {
	uint64_t datagrams;	/* every DATA datagram, duplicates too */
	uint64_t bytes;		/* their payload bytes, headers included */
	uint64_t distinct;	/* datagrams, less the duplicates */
	uint64_t duplicated;
	uint64_t out_of_order;	/* distinct, but after one with a higher number */
	uint64_t next_seq;	/* one more than the highest number seen */
	uint64_t seen[DGRAM_WINDOW / 64];	/* the window's numbers that came, by seq % DGRAM_WINDOW */
};

void dgram_count_init(struct dgram_count *c);

/* A DATA datagram of len payload bytes numbered seq. */
void dgram_count_add(struct dgram_count *c, uint64_t seq, size_t len);

/*
 * The datagrams lost: with an END (ended), of `sent`, its count, whatever
 * that is (2^64 - 1 too); without one, of those up to the highest number
 * seen.
 */
uint64_t dgram_count_lost(const struct dgram_count *c, int ended, uint64_t sent);

/* The share lost of `sent`, when `received` of them came (0 when none were sent). */
double dgram_loss_pct(uint64_t sent, uint64_t received);
/* More than DGRAM_LOSS_PCT lost. */
int dgram_lossy(uint64_t sent, uint64_t received);

#endif
