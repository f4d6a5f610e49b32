/*
 * fuzz_turnswire: a coverage-guided fuzz target (libFuzzer) for what the two
 * ends of the turns tell each other, lib/turnswire: the slot table zcs reads
 * from a peer, how much of it zcs keeps as it comes, and the answer zcc
 * reads back ("zcTA", or "zcTC" with each CPU's load). The first byte says
 * which: even, a table; odd, an answer to a
 * table of as many slots as the second byte says (for a table, the most
 * slots it may hold, less one, and the first byte's half the pieces it
 * comes in, less one). Each is read by lib/ and
 * by an independent reader written here from the format's description;
 * they must agree on whether it is one, and on every field. A table that
 * decodes must be kept whole, no more; one that does not, never past the
 * size its head gives. Any disagreement aborts.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/proto.h"
#include "../lib/turnswire.h"

static uint64_t big_endian(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

/* A table as the format describes it: 0 if it is none. */
struct model_table {
	uint32_t slot_ms, n_arms, n_slots;
	char names[8][40];
	size_t head, size;	/* the bytes up to its first slot; all of it */
	size_t decided;		/* not a table's: the bytes that show it */
};

/*
 * Its head, read independently: 1 whole and a table's (m->size its size),
 * 0 not a table's, -1 cut short before that is known.
 */
static int model_head(const uint8_t *p, size_t n, uint32_t max_slots, struct model_table *m)
{
	size_t at = 12;

	memset(m, 0, sizeof(*m));
	if (n < 4)
		return -1;
	m->decided = 4;
	if (memcmp(p, "zcTS", 4) != 0)
		return 0;
	if (n < 12)
		return -1;
	m->slot_ms = big_endian(p + 4, 4);
	m->n_arms = big_endian(p + 8, 4);
	m->decided = 12;
	if (m->slot_ms < 20 || m->slot_ms > 60000 || m->n_arms < 2 || m->n_arms > 8)
		return 0;
	for (uint32_t a = 0; a < m->n_arms; a++) {
		uint32_t k;

		if (n < at + 4)
			return -1;
		k = big_endian(p + at, 4);
		m->decided = at + 4;
		if (k > 39)
			return 0;
		if (n >= at + 4 + k)
			memcpy(m->names[a], p + at + 4, k);
		at += 4 + k;
	}
	if (n < at + 4)
		return -1;
	m->n_slots = big_endian(p + at, 4);
	m->decided = at + 4;
	if (m->n_slots > max_slots)
		return 0;
	m->head = at + 4;
	m->size = m->head + (size_t)m->n_slots * 24;
	return 1;
}

/* The whole table, read independently: 1 a table, 0 not. */
static int model_table(const uint8_t *p, size_t n, struct model_table *m)
{
	uint64_t last_to = 0;

	if (model_head(p, n, TURNS_MAX_SLOTS, m) != 1 || n != m->size)
		return 0;
	for (uint32_t a = 0; a < m->n_arms; a++)
		for (size_t c = 0; c < strlen(m->names[a]); c++)
			if (m->names[a][c] < '!' || m->names[a][c] > '~')
				return 0;
	/* A name cut at a NUL is not printable either: every byte of its length is checked. */
	for (uint32_t a = 0, at = 12; a < m->n_arms; a++) {
		uint32_t k = big_endian(p + at, 4);

		for (uint32_t c = 0; c < k; c++)
			if (p[at + 4 + c] < '!' || p[at + 4 + c] > '~')
				return 0;
		at += 4 + k;
	}
	for (uint32_t i = 0; i < m->n_slots; i++) {
		const uint8_t *s = p + m->head + 24 * (size_t)i;
		uint64_t from = big_endian(s + 8, 8), to = big_endian(s + 16, 8);

		if (big_endian(s, 4) >= m->n_arms || to < from || (i && from < last_to))
			return 0;
		last_to = to;
	}
	return 1;
}

static size_t keep(const unsigned char *kept, size_t len, void *arg)
{
	return turns_table_want(kept, len, *(const uint32_t *)arg, NULL, 0);
}

/* What proto_rx keeps of p after a whole stream, fed in pieces of `piece`. */
static size_t kept_of(const uint8_t *p, size_t n, size_t piece, uint32_t max_slots)
{
	static const unsigned char empty_stream[8] = { 0, 0, 0, 1, 0, 0, 0, 0 };
	struct proto_rx rx;
	size_t kept;

	proto_rx_init(&rx);
	rx.keep = keep;
	rx.keep_arg = &max_slots;
	proto_rx_feed(&rx, empty_stream, sizeof(empty_stream));
	for (size_t at = 0; at < n; at += piece)
		proto_rx_feed(&rx, p + at, n - at < piece ? n - at : piece);
	kept = rx.after_len;
	if (rx.extra_bytes != n || (kept && memcmp(rx.after, p, kept) != 0))
		abort();
	proto_rx_free(&rx);
	return kept;
}

static void fuzz_table(const uint8_t *p, size_t n, size_t piece, uint32_t max_slots)
{
	static const char *const two[] = { "a", "b" };
	struct model_table m;
	struct turns t;
	struct turns_range *ranges;
	size_t got_n;
	char why[200];
	int ok, want_ok = model_table(p, n, &m), head;

	turns_init(&t, TURNS_RECEIVER, two, 2, 100);
	ok = turns_table_decode(p, n, &t, &ranges, &got_n, why, sizeof(why)) == 0;
	if (ok != want_ok)
		abort();
	if (ok) {
		if (got_n != m.n_slots || t.n_arms != m.n_arms || (uint32_t)t.slot_ms != m.slot_ms)
			abort();
		for (uint32_t a = 0; a < m.n_arms; a++)
			if (strcmp(t.mode[a], m.names[a]) != 0)
				abort();
		for (uint32_t i = 0; i < m.n_slots; i++) {
			const uint8_t *s = p + m.head + 24 * (size_t)i;

			if (ranges[i].arm != big_endian(s, 4) || ranges[i].cycle != big_endian(s + 4, 4) ||
			    ranges[i].from != big_endian(s + 8, 8) || ranges[i].to != big_endian(s + 16, 8))
				abort();
		}
		free(ranges);
		if (turns_table_want(p, n, TURNS_MAX_SLOTS, NULL, 0) != n)
			abort();
	} else if (ranges) {
		abort();
	}
	/* Kept as it comes: a table whole and no more; a head that is none, not past what shows it. */
	head = model_head(p, n, max_slots, &m);
	{
		size_t kept = kept_of(p, n, piece, max_slots);

		if (head == 1 && kept != (n < m.size ? n : m.size))
			abort();
		if (head == -1 && kept != n)
			abort();
		if (head == 0 && kept > m.decided)
			abort();
		if (kept > 4 + 8 + 8 * 43 + 4 + (size_t)max_slots * 24)
			abort();
	}
}

/* A share a figure may be: finite, within +-10 (1000%). */
static int model_share(double v)
{
	return isfinite(v) && fabs(v) <= 10;
}

static double model_double(const uint8_t *p)
{
	uint64_t bits = big_endian(p, 8);
	double v;

	memcpy(&v, &bits, 8);
	return v;
}

/*
 * An answer to a table of k slots, read independently: 1 if it is one. "zcTA"
 * has a record of 44 bytes a slot; "zcTC" the meter's CPUs' numbers after the
 * count of slots (1 to 1024 of them, each below 1024), and each record
 * followed by a load a CPU. *cpus gets their count ("zcTC"), else 0.
 */
static int model_answer(const uint8_t *p, size_t n, uint32_t k, uint32_t *cpus, size_t *at)
{
	uint64_t n_cpus, record;

	*cpus = 0;
	if (n < 12 || (memcmp(p, "zcTA", 4) != 0 && memcmp(p, "zcTC", 4) != 0))
		return 0;
	n_cpus = big_endian(p + 4, 4);
	if (memcmp(p, "zcTC", 4) == 0) {
		if (n_cpus < 1 || n_cpus > 1024 || n < 12 + 4 * n_cpus)
			return 0;
		for (uint64_t c = 0; c < n_cpus; c++)
			if (big_endian(p + 12 + 4 * c, 4) >= 1024)
				return 0;
		*cpus = n_cpus;
	} else if (n_cpus > 4096) {
		return 0;
	}
	*at = 12 + 4 * (size_t)*cpus;
	record = 44 + 8 * (uint64_t)*cpus;
	if (big_endian(p + 8, 4) != k || n - *at != record * k)
		return 0;
	for (uint32_t i = 0; i < k; i++) {
		const uint8_t *s = p + *at + record * i;
		uint64_t ns = big_endian(s + 12, 8);

		if (!big_endian(s, 4))
			continue;
		if (!model_share(model_double(s + 20)) || !model_share(model_double(s + 28)) ||
		    (!isnan(model_double(s + 36)) && !model_share(model_double(s + 36))) || ns == 0 ||
		    ns > 2ULL * 60000 * 1000000)
			return 0;
		for (uint32_t c = 0; c < *cpus; c++)
			if (!isnan(model_double(s + 44 + 8 * c)) && !model_share(model_double(s + 44 + 8 * c)))
				return 0;
	}
	return 1;
}

static void fuzz_answer(const uint8_t *p, size_t n, uint32_t k)
{
	static const char *const two[] = { "a", "b" };
	struct turns sender, back;
	char why[200];
	uint32_t cpus;
	size_t at = 0, record;
	int ok, want_ok = model_answer(p, n, k, &cpus, &at);
	size_t measured = 0;

	turns_init(&sender, TURNS_SENDER, two, 2, 100);
	for (uint32_t i = 0; i < k; i++) {
		struct turns_slot sl = { .arm = i % 2, .cycle = i / 2, .at = i };

		turns_add(&sender, &sl);
	}
	ok = turns_answer_decode(p, n, &sender, &back, why, sizeof(why)) == 0;
	if (ok != want_ok)
		abort();
	record = 44 + 8 * (size_t)cpus;
	if (ok) {
		for (uint32_t i = 0; i < k; i++)
			measured += big_endian(p + at + record * i, 4) != 0;
		if (back.n_slots != measured || back.n_cpus != (int)big_endian(p + 4, 4) ||
		    back.n_cpu != (int)cpus)
			abort();
		for (uint32_t c = 0; c < cpus; c++)
			if (back.cpu[c] != (int)big_endian(p + 12 + 4 * c, 4))
				abort();
		for (size_t i = 0; i < back.n_slots; i++) {
			const uint8_t *s = p + at + record * back.slots[i].at;

			if (back.slots[i].arm != back.slots[i].at % 2 ||
			    back.slots[i].bytes != big_endian(s + 4, 8) ||
			    back.slots[i].fig.ns != big_endian(s + 12, 8))
				abort();
			for (uint32_t c = 0; c < cpus; c++) {
				double got = turns_slot_loads(&back, i)[c], want = model_double(s + 44 + 8 * c);

				if (!(got == want || (isnan(got) && isnan(want))))
					abort();
			}
		}
		turns_free(&back);
	}
	turns_free(&sender);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	if (n < 2)
		return 0;
	if (in[0] % 2 == 0)
		fuzz_table(in + 2, n - 2, 1 + in[0] / 2, 1 + in[1]);
	else
		fuzz_answer(in + 2, n - 2, in[1]);
	return 0;
}
