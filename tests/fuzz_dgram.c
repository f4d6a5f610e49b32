/*
 * fuzz_dgram: a coverage-guided fuzz target (libFuzzer) for zcs's datagram
 * decoder and its count of one sender's datagrams, lib/dgram. The input is a
 * run of datagrams, each a 16-bit big-endian length and that many bytes
 * (what is left, for the last). Each is parsed; each DATA one is counted by
 * lib/dgram and by an independent count written here from the format's
 * description, which remembers every number it saw. The two must agree on
 * every figure; a field the parser got wrong, or a count they disagree on,
 * aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/dgram.h"

static uint64_t big_endian(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static int same_header(const struct dgram_header *a, const struct dgram_header *b)
{
	return a->kind == b->kind && a->stream == b->stream && a->loop == b->loop &&
	       a->seq == b->seq && a->file == b->file && a->offset == b->offset;
}

/* Every DATA number seen so far, and the figures the format says they make. */
struct model {
	uint64_t seqs[65536];
	size_t n;
	uint64_t datagrams, bytes, distinct, duplicated, out_of_order, next_seq;
};

static int seen(const struct model *m, uint64_t seq)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->seqs[i] == seq)
			return 1;
	return 0;
}

/*
 * A number at or past the highest is new; a number behind it is a duplicate
 * if it came before and is within DGRAM_WINDOW of the highest, else a new
 * one out of order.
 */
static void model_add(struct model *m, uint64_t seq, size_t len)
{
	int was = seen(m, seq);

	m->datagrams++;
	m->bytes += len;
	if (m->n < sizeof(m->seqs) / sizeof(m->seqs[0]))
		m->seqs[m->n++] = seq;
	if (seq >= m->next_seq) {
		m->next_seq = seq + 1;
		m->distinct++;
	} else if (was && m->next_seq - seq <= DGRAM_WINDOW) {
		m->duplicated++;
	} else {
		m->distinct++;
		m->out_of_order++;
	}
}

/* The header's fields, read here from the offsets the format gives; 0 if it is not ours. */
static int parse_independently(const uint8_t *p, size_t len, struct dgram_header *h)
{
	if (len < 32 || memcmp(p, "zcDG", 4) != 0)
		return 0;
	*h = (struct dgram_header){ .kind = big_endian(p + 4, 4), .stream = big_endian(p + 8, 4),
				    .loop = big_endian(p + 12, 4), .seq = big_endian(p + 16, 8),
				    .file = big_endian(p + 24, 4), .offset = big_endian(p + 28, 4) };
	if (h->kind == DGRAM_DATA)
		return h->seq < (1ULL << 63);
	return (h->kind == DGRAM_END || h->kind == DGRAM_ACK) && len >= 40;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static struct model m;
	static struct dgram_count c;
	size_t at = 0;

	memset(&m, 0, sizeof(m));
	dgram_count_init(&c);
	while (at < n) {
		size_t len = n - at;
		struct dgram_header h, want;
		uint64_t bytes = 0;
		int ok, want_ok;

		if (len >= 2) {
			len = big_endian(in + at, 2);
			at += 2;
			if (len > n - at)
				len = n - at;
		}
		ok = dgram_parse(in + at, len, &h, &bytes) == 0;
		want_ok = parse_independently(in + at, len, &want);
		if (ok != want_ok || (ok && !same_header(&h, &want)))
			abort();
		if (ok && h.kind != DGRAM_DATA && bytes != big_endian(in + at + 32, 8))
			abort();
		if (ok && h.kind == DGRAM_DATA) {
			dgram_count_add(&c, h.seq, len);
			model_add(&m, h.seq, len);
		}
		at += len;
	}
	if (c.datagrams != m.datagrams || c.bytes != m.bytes || c.distinct != m.distinct ||
	    c.duplicated != m.duplicated || c.out_of_order != m.out_of_order ||
	    c.next_seq != m.next_seq)
		abort();
	if (dgram_count_lost(&c, 0, 0) != (m.next_seq > m.distinct ? m.next_seq - m.distinct : 0))
		abort();
	return 0;
}
