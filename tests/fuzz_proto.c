/*
 * fuzz_proto: a coverage-guided fuzz target (libFuzzer) for zcs's stream
 * decoder, lib/proto's proto_rx. Each input is decoded whole, and again in
 * chunks whose sizes come from the input itself; the two must agree with each
 * other and with an independent decoder written here from the protocol's
 * description, which shares no code with lib/proto. A disagreement aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/proto.h"

/* What a receiver knows at the end of some bytes of a stream. */
struct outcome {
	const char *waiting;	/* "header", "file data", or NULL once complete */
	uint64_t files_done;
	uint64_t extra_bytes;
};

static uint32_t big_endian(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * n_loops, then per loop n_files, then per file its length and that many
 * bytes; each count a 32-bit big-endian integer. Every count read takes 4
 * bytes of the input, so the loops end within the input's length.
 */
static struct outcome decode_independently(const uint8_t *in, size_t n)
{
	struct outcome o = { .waiting = "header" };
	size_t at = 0;
	uint32_t loops, files, length;

	if (n - at < 4)
		return o;
	loops = big_endian(in + at), at += 4;
	for (uint32_t l = 0; l < loops; l++) {
		if (n - at < 4)
			return o;
		files = big_endian(in + at), at += 4;
		for (uint32_t f = 0; f < files; f++) {
			if (n - at < 4)
				return o;
			length = big_endian(in + at), at += 4;
			if (n - at < length) {
				o.waiting = "file data";
				return o;
			}
			at += length;
			o.files_done++;
		}
	}
	o.waiting = NULL;
	o.extra_bytes = n - at;
	return o;
}

static struct outcome outcome_of(const struct proto_rx *rx)
{
	return (struct outcome){ .waiting = proto_rx_waiting_for(rx),
				 .files_done = rx->files_done,
				 .extra_bytes = rx->extra_bytes };
}

static void must_agree(const struct outcome *a, const struct outcome *b)
{
	if (a->files_done != b->files_done || a->extra_bytes != b->extra_bytes ||
	    (a->waiting == NULL) != (b->waiting == NULL) ||
	    (a->waiting && strcmp(a->waiting, b->waiting) != 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	struct outcome want = decode_independently(in, n), whole, chunked;
	struct proto_rx rx;
	uint32_t seed = 2166136261u;

	proto_rx_init(&rx);
	proto_rx_feed(&rx, in, n);
	whole = outcome_of(&rx);
	/* Chunks of 1 to 16 bytes, or now and then the rest, as reads return. */
	for (size_t i = 0; i < n; i++)
		seed = (seed ^ in[i]) * 16777619u;
	proto_rx_init(&rx);
	for (size_t at = 0; at < n;) {
		size_t len = seed % 20 < 16 ? seed % 16 + 1 : n - at;

		seed = seed * 1103515245u + 12345u;
		if (len > n - at)
			len = n - at;
		proto_rx_feed(&rx, in + at, len);
		at += len;
	}
	chunked = outcome_of(&rx);
	must_agree(&whole, &want);
	must_agree(&chunked, &want);
	return 0;
}
