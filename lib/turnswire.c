#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "turnswire.h"

/* The wire's writer and reader: big-endian integers, doubles by their IEEE 754 bits. */
struct wire {
	unsigned char *buf;
	size_t len, cap;
	const unsigned char *in;
	size_t in_len, at;
	int short_read;
};

static void put(struct wire *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		while (w->len + n > w->cap)
			w->cap = w->cap ? 2 * w->cap : 4096;
		w->buf = realloc(w->buf, w->cap);
		if (!w->buf)
			err(1, "realloc");
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_u32(struct wire *w, uint32_t v)
{
	unsigned char b[PROTO_U32_BYTES];

	proto_put_u32(b, v);
	put(w, b, sizeof(b));
}

static void put_u64(struct wire *w, uint64_t v)
{
	unsigned char b[2 * PROTO_U32_BYTES];

	proto_put_u64(b, v);
	put(w, b, sizeof(b));
}

static void put_double(struct wire *w, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	put_u64(w, v);
}

static const unsigned char *get(struct wire *w, size_t n)
{
	const unsigned char *p = w->in + w->at;

	if (w->short_read || n > w->in_len - w->at) {
		w->short_read = 1;
		return NULL;
	}
	w->at += n;
	return p;
}

static uint32_t get_u32(struct wire *w)
{
	const unsigned char *p = get(w, PROTO_U32_BYTES);

	return p ? proto_get_u32(p) : 0;
}

static uint64_t get_u64(struct wire *w)
{
	const unsigned char *p = get(w, 2 * PROTO_U32_BYTES);

	return p ? proto_get_u64(p) : 0;
}

static double get_double(struct wire *w)
{
	uint64_t v = get_u64(w);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

unsigned char *turns_table_encode(const struct turns *t, const struct turns_range *ranges,
				  size_t *len)
{
	struct wire w = { 0 };

	put(&w, TURNS_TABLE_MAGIC, 4);
	put_u32(&w, t->slot_ms);
	put_u32(&w, t->n_arms);
	for (unsigned i = 0; i < t->n_arms; i++) {
		/*
		 * An arm named for its mode ("write", "write#2") goes by its mode,
		 * and zcs names it so too; one named otherwise (-X's "b=64k"), by
		 * its name.
		 */
		const char *name = strncmp(t->arm[i], t->mode[i], strlen(t->mode[i])) == 0 ?
					   t->mode[i] : t->arm[i];

		put_u32(&w, strlen(name));
		put(&w, name, strlen(name));
	}
	put_u32(&w, t->n_slots);
	for (size_t i = 0; i < t->n_slots; i++) {
		put_u32(&w, ranges[i].arm);
		put_u32(&w, ranges[i].cycle);
		put_u64(&w, ranges[i].from);
		put_u64(&w, ranges[i].to);
	}
	*len = w.len;
	return w.buf;
}

/* The record a slot takes in the table, and in the answer. */
#define TABLE_SLOT_BYTES 24
#define ANSWER_SLOT_BYTES 44

/*
 * A share of the meter's CPUs as a slot's figures may hold it: a load is at
 * most 1, and below 0 by a calibration's error; anything past +-MAX_SHARE,
 * infinite or not a number, no meter gave.
 */
#define MAX_SHARE 10.0
/* A measured slot is at most its length, TURNS_MAX_SLOT_MS; twice that, for clocks that differ. */
#define SLOT_MAX_NS (2ULL * TURNS_MAX_SLOT_MS * 1000000ULL)

static int a_share(double v)
{
	return isfinite(v) && fabs(v) <= MAX_SHARE;
}

/* A slot's length in a table: what -A takes. */
static int a_slot_ms(uint32_t ms)
{
	return ms >= TURNS_MIN_SLOT_MS && ms <= TURNS_MAX_SLOT_MS;
}

size_t turns_table_want(const unsigned char *buf, size_t len, uint32_t max_slots, char *why,
			size_t why_len)
{
	char none[8];
	size_t at = 3 * PROTO_U32_BYTES;
	uint32_t n_arms, n_slots;

	if (!why) {
		why = none;
		why_len = sizeof(none);
	}
	if (len < 4)
		return 4;
	if (memcmp(buf, TURNS_TABLE_MAGIC, 4) != 0) {
		snprintf(why, why_len, "it does not begin with %s", TURNS_TABLE_MAGIC);
		return 0;
	}
	if (len < at)
		return at;
	if (!a_slot_ms(proto_get_u32(buf + 4))) {
		snprintf(why, why_len, "slots of %u ms (%d to %d)", proto_get_u32(buf + 4),
			 TURNS_MIN_SLOT_MS, TURNS_MAX_SLOT_MS);
		return 0;
	}
	n_arms = proto_get_u32(buf + 8);
	if (n_arms < 2 || n_arms > TURNS_MAX_ARMS) {
		snprintf(why, why_len, "%u arms (2 to %d)", n_arms, TURNS_MAX_ARMS);
		return 0;
	}
	for (uint32_t i = 0; i < n_arms; i++) {
		uint32_t k;

		if (len < at + PROTO_U32_BYTES)
			return at + PROTO_U32_BYTES;
		k = proto_get_u32(buf + at);
		if (k >= TURNS_NAME_BYTES) {
			snprintf(why, why_len, "arm %u's mode is longer than %d bytes", i + 1,
				 TURNS_NAME_BYTES - 1);
			return 0;
		}
		at += PROTO_U32_BYTES + k;
	}
	if (len < at + PROTO_U32_BYTES)
		return at + PROTO_U32_BYTES;
	n_slots = proto_get_u32(buf + at);
	if (n_slots > max_slots || n_slots > TURNS_MAX_SLOTS) {
		snprintf(why, why_len, "%u slots, more than the %u the stream had time for", n_slots,
			 max_slots < TURNS_MAX_SLOTS ? max_slots : TURNS_MAX_SLOTS);
		return 0;
	}
	return at + PROTO_U32_BYTES + (size_t)n_slots * TABLE_SLOT_BYTES;
}

uint32_t turns_table_max_slots(uint64_t elapsed_ns)
{
	uint64_t n = 2 * (elapsed_ns / (TURNS_MIN_SLOT_MS * 1000000ULL) + 1);

	return n < TURNS_MAX_SLOTS ? (uint32_t)n : TURNS_MAX_SLOTS;
}

int turns_table_decode(const unsigned char *buf, size_t len, struct turns *t,
		       struct turns_range **ranges, size_t *n, char *why, size_t why_len)
{
	struct wire w = { .in = buf, .in_len = len };
	char modes[TURNS_MAX_ARMS][TURNS_NAME_BYTES];
	const char *names[TURNS_MAX_ARMS];
	const unsigned char *magic = get(&w, 4);
	uint32_t slot_ms = get_u32(&w), n_arms = get_u32(&w), n_slots;

	*ranges = NULL;
	*n = 0;
	if (!magic || memcmp(magic, TURNS_TABLE_MAGIC, 4) != 0) {
		snprintf(why, why_len, "it does not begin with %s", TURNS_TABLE_MAGIC);
		return -1;
	}
	if (!a_slot_ms(slot_ms)) {
		snprintf(why, why_len, "slots of %u ms (%d to %d)", slot_ms, TURNS_MIN_SLOT_MS,
			 TURNS_MAX_SLOT_MS);
		return -1;
	}
	if (n_arms < 2 || n_arms > TURNS_MAX_ARMS) {
		snprintf(why, why_len, "%u arms (2 to %d)", n_arms, TURNS_MAX_ARMS);
		return -1;
	}
	for (uint32_t i = 0; i < n_arms; i++) {
		uint32_t k = get_u32(&w);
		const unsigned char *p = k < TURNS_NAME_BYTES ? get(&w, k) : NULL;

		if (!p) {
			snprintf(why, why_len, "arm %u's mode is cut short or longer than %d bytes", i + 1,
				 TURNS_NAME_BYTES - 1);
			return -1;
		}
		for (uint32_t c = 0; c < k; c++)
			if (p[c] < '!' || p[c] > '~') {
				snprintf(why, why_len, "arm %u's mode has a byte that is not printable", i + 1);
				return -1;
			}
		memcpy(modes[i], p, k);
		modes[i][k] = 0;
		names[i] = modes[i];
	}
	n_slots = get_u32(&w);
	if (w.short_read || n_slots > TURNS_MAX_SLOTS || (size_t)n_slots * TABLE_SLOT_BYTES != len - w.at) {
		snprintf(why, why_len, "%u slots in %zu bytes", n_slots, w.short_read ? 0 : len - w.at);
		return -1;
	}
	*ranges = calloc(n_slots ? n_slots : 1, sizeof(**ranges));
	if (!*ranges)
		err(1, "calloc");
	for (uint32_t i = 0; i < n_slots; i++) {
		struct turns_range *r = &(*ranges)[i];

		r->arm = get_u32(&w);
		r->cycle = get_u32(&w);
		r->from = get_u64(&w);
		r->to = get_u64(&w);
		if (r->arm >= n_arms || r->to < r->from || (i && r->from < (*ranges)[i - 1].to)) {
			snprintf(why, why_len, "slot %u: arm %u, bytes %llu to %llu, out of order or range",
				 i + 1, r->arm + 1, (unsigned long long)r->from, (unsigned long long)r->to);
			free(*ranges);
			*ranges = NULL;
			return -1;
		}
	}
	turns_init(t, TURNS_RECEIVER, names, n_arms, slot_ms);
	*n = n_slots;
	return 0;
}

unsigned char *turns_answer_encode(const struct turns_slot *slots, const int *measured, size_t n,
				   int n_cpus, const int *cpus, const double *loads, size_t *len)
{
	struct wire w = { 0 };
	int by_cpu = cpus && loads && n_cpus > 0;

	put(&w, by_cpu ? TURNS_ANSWER_CPUS_MAGIC : TURNS_ANSWER_MAGIC, 4);
	put_u32(&w, n_cpus);
	put_u32(&w, n);
	for (int k = 0; by_cpu && k < n_cpus; k++)
		put_u32(&w, cpus[k]);
	for (size_t i = 0; i < n; i++) {
		put_u32(&w, measured[i]);
		put_u64(&w, slots[i].bytes);
		put_u64(&w, slots[i].fig.ns);
		put_double(&w, slots[i].fig.load);
		put_double(&w, slots[i].fig.time_lost);
		put_double(&w, slots[i].fig.kernel);
		for (int k = 0; by_cpu && k < n_cpus; k++)
			put_double(&w, loads[i * n_cpus + k]);
	}
	*len = w.len;
	return w.buf;
}

/* The most CPUs an answer's meter may have. */
#define ANSWER_MAX_CPUS 1024

int turns_answer_decode(const unsigned char *buf, size_t len, const struct turns *sender,
			struct turns *t, char *why, size_t why_len)
{
	struct wire w = { .in = buf, .in_len = len };
	const unsigned char *magic = get(&w, 4);
	uint32_t n_cpus = get_u32(&w), n = get_u32(&w);
	int by_cpu = magic && memcmp(magic, TURNS_ANSWER_CPUS_MAGIC, 4) == 0;
	int cpus[ANSWER_MAX_CPUS];
	double loads[ANSWER_MAX_CPUS];
	size_t record;

	if (!magic || (!by_cpu && memcmp(magic, TURNS_ANSWER_MAGIC, 4) != 0)) {
		snprintf(why, why_len, "it does not begin with %s or %s", TURNS_ANSWER_MAGIC,
			 TURNS_ANSWER_CPUS_MAGIC);
		return -1;
	}
	if (n_cpus > (by_cpu ? ANSWER_MAX_CPUS : 4096) || (by_cpu && !n_cpus)) {
		snprintf(why, why_len, "a meter of %u CPUs", n_cpus);
		return -1;
	}
	for (uint32_t k = 0; by_cpu && k < n_cpus; k++) {
		cpus[k] = get_u32(&w);
		if (cpus[k] < 0 || cpus[k] >= ANSWER_MAX_CPUS) {
			snprintf(why, why_len, "CPU %u of the meter's out of range", (unsigned)cpus[k]);
			return -1;
		}
	}
	record = ANSWER_SLOT_BYTES + (by_cpu ? (size_t)n_cpus * 8 : 0);
	if (w.short_read || n != sender->n_slots || (size_t)n * record != len - w.at) {
		snprintf(why, why_len, "%u slots in %zu bytes, for a table of %zu", n,
			 w.short_read ? 0 : len - w.at, sender->n_slots);
		return -1;
	}
	turns_init_like(t, TURNS_RECEIVER, sender);
	t->n_cpus = n_cpus;
	if (by_cpu)
		turns_set_cpus(t, cpus, n_cpus);
	for (uint32_t i = 0; i < n; i++) {
		struct turns_slot sl = { .arm = sender->slots[i].arm, .cycle = sender->slots[i].cycle,
					 .at = sender->slots[i].at };
		int measured = get_u32(&w), loads_ok = 1;

		sl.bytes = get_u64(&w);
		sl.fig.ns = get_u64(&w);
		sl.fig.load = get_double(&w);
		sl.fig.time_lost = get_double(&w);
		sl.fig.kernel = get_double(&w);
		for (uint32_t k = 0; by_cpu && k < n_cpus; k++) {
			loads[k] = get_double(&w);
			loads_ok &= isnan(loads[k]) || a_share(loads[k]);
		}
		if (!measured)
			continue;
		if (!a_share(sl.fig.load) || !a_share(sl.fig.time_lost) ||
		    (!isnan(sl.fig.kernel) && !a_share(sl.fig.kernel)) || !sl.fig.ns ||
		    sl.fig.ns > SLOT_MAX_NS || !loads_ok) {
			snprintf(why, why_len, "slot %u's figures are out of range: load %g, time lost "
				 "%g, kernel %g, %llu ns%s", i + 1, sl.fig.load, sl.fig.time_lost,
				 sl.fig.kernel, (unsigned long long)sl.fig.ns,
				 loads_ok ? "" : ", a CPU's load");
			turns_free(t);
			return -1;
		}
		sl.cpu_load = by_cpu ? loads : NULL;
		turns_add(t, &sl);
	}
	return 0;
}
