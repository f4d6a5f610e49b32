#include <string.h>

#include "dgram.h"
#include "proto.h"

uint64_t dgram_file_datagrams(uint64_t file_bytes, size_t dgram_bytes)
{
	uint64_t room = dgram_bytes - DGRAM_HEADER_BYTES;

	return file_bytes ? (file_bytes + room - 1) / room : 1;
}

void dgram_put_header(unsigned char out[DGRAM_HEADER_BYTES], const struct dgram_header *h)
{
	proto_put_u32(out, DGRAM_MAGIC);
	proto_put_u32(out + 4, h->kind);
	proto_put_u32(out + 8, h->stream);
	proto_put_u32(out + 12, h->loop);
	proto_put_u64(out + 16, h->seq);
	proto_put_u32(out + 24, h->file);
	proto_put_u32(out + 28, h->offset);
}

void dgram_put_end(unsigned char out[DGRAM_END_BYTES], const struct dgram_header *h,
		   uint64_t bytes)
{
	dgram_put_header(out, h);
	proto_put_u64(out + DGRAM_HEADER_BYTES, bytes);
}

int dgram_parse(const unsigned char *buf, size_t len, struct dgram_header *h, uint64_t *bytes)
{
	if (len < DGRAM_HEADER_BYTES || proto_get_u32(buf) != DGRAM_MAGIC)
		return -1;
	*h = (struct dgram_header){ .kind = proto_get_u32(buf + 4),
				    .stream = proto_get_u32(buf + 8),
				    .loop = proto_get_u32(buf + 12),
				    .seq = proto_get_u64(buf + 16),
				    .file = proto_get_u32(buf + 24),
				    .offset = proto_get_u32(buf + 28) };
	switch (h->kind) {
	case DGRAM_DATA:
		/* No sender numbers so far; a receiver's count would wrap past it. */
		return h->seq < DGRAM_MAX_SEQ ? 0 : -1;
	case DGRAM_END:
	case DGRAM_ACK:
		if (len < DGRAM_END_BYTES)
			return -1;
		if (bytes)
			*bytes = proto_get_u64(buf + DGRAM_HEADER_BYTES);
		return 0;
	}
	return -1;
}

void dgram_count_init(struct dgram_count *c)
{
	memset(c, 0, sizeof(*c));
}

static int seen_test_and_set(struct dgram_count *c, uint64_t seq)
{
	uint64_t bit = seq % DGRAM_WINDOW, mask = 1ULL << (bit % 64);
	int was = (c->seen[bit / 64] & mask) != 0;

	c->seen[bit / 64] |= mask;
	return was;
}

static void seen_clear(struct dgram_count *c, uint64_t seq)
{
	uint64_t bit = seq % DGRAM_WINDOW;

	c->seen[bit / 64] &= ~(1ULL << (bit % 64));
}

void dgram_count_add(struct dgram_count *c, uint64_t seq, size_t len)
{
	c->datagrams++;
	c->bytes += len;
	if (seq >= c->next_seq) {
		/* The numbers skipped over take the places of those a window back. */
		if (seq - c->next_seq >= DGRAM_WINDOW)
			memset(c->seen, 0, sizeof(c->seen));
		else
			for (uint64_t s = c->next_seq; s < seq; s++)
				seen_clear(c, s);
		seen_clear(c, seq);
		seen_test_and_set(c, seq);
		c->next_seq = seq + 1;
		c->distinct++;
		return;
	}
	if (c->next_seq - seq > DGRAM_WINDOW) {
		c->distinct++;
		c->out_of_order++;
		return;
	}
	if (seen_test_and_set(c, seq)) {
		c->duplicated++;
		return;
	}
	c->distinct++;
	c->out_of_order++;
}

uint64_t dgram_count_lost(const struct dgram_count *c, int ended, uint64_t sent)
{
	uint64_t expected = ended ? sent : c->next_seq;

	return expected > c->distinct ? expected - c->distinct : 0;
}

double dgram_loss_pct(uint64_t sent, uint64_t received)
{
	return sent && received < sent ? 100.0 * (sent - received) / sent : 0;
}

int dgram_lossy(uint64_t sent, uint64_t received)
{
	return dgram_loss_pct(sent, received) > DGRAM_LOSS_PCT;
}
