/*
 * What the tests' own peers (dgramsend, pagesend, udppeer) share, none of it
 * zc's code: the constants older headers lack, and the datagram header as
 * docs/programs.txt ("Datagrams") describes it.
 */
#ifndef ZC_TESTS_PEER_H
#define ZC_TESTS_PEER_H

#include <stdint.h>
#include <string.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

/* A datagram's header: "zcDG", then kind, stream, loop, seq (64 bits), file, offset. */
#define HEADER 32

static inline void put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24, p[1] = v >> 16, p[2] = v >> 8, p[3] = v;
}

static inline void put_header(unsigned char *p, uint32_t kind, uint32_t stream, uint32_t loop,
			      uint64_t seq, uint32_t file, uint32_t offset)
{
	memcpy(p, "zcDG", 4);
	put32(p + 4, kind);
	put32(p + 8, stream);
	put32(p + 12, loop);
	put32(p + 16, seq >> 32);
	put32(p + 20, seq);
	put32(p + 24, file);
	put32(p + 28, offset);
}

#endif
