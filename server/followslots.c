/*
 * The turns' followed source (rxturns.c), zcs's part of zcc's turns: samples
 * of the meter along the stream, each with the bytes received by then, given
 * after the stream to the sender's slots by their offsets (the slot table),
 * so that each slot's figures are the receiving host's over the very bytes
 * the sender measured, whatever the two clocks say.
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/net.h"
#include "lib/timing.h"
#include "server.h"

/* The samples kept at most: past that, every other is dropped and the period doubles. */
#define FOLLOW_MAX_SAMPLES (1u << 18)

void follow_start(struct follow *f, struct meter *m, int fd)
{
	size_t cpus = meter_cpus(m);

	memset(f, 0, sizeof(*f));
	f->m = m;
	f->fd = fd;
	f->period_ns = FOLLOW_PERIOD_MS * 1000000ULL;
	f->cap = 4096;
	f->bytes = malloc(f->cap * sizeof(*f->bytes));
	f->queued = malloc(f->cap * sizeof(*f->queued));
	f->s = malloc(f->cap * sizeof(*f->s));
	if (cpus) {
		f->steps = malloc(f->cap * cpus * sizeof(uint64_t));
		f->cpu_ns = malloc(f->cap * cpus * sizeof(uint64_t));
	}
	if (!f->bytes || !f->queued || !f->s || (cpus && (!f->steps || !f->cpu_ns)))
		err(1, "the meter's samples along the stream");
	follow_sample(f, 0, 1);
}

/* Every other sample dropped, and the period doubled: the samples' span, kept in bounds. */
static void thin(struct follow *f)
{
	size_t cpus = meter_cpus(f->m), k = 0;

	for (size_t i = 0; i < f->n; i += 2, k++) {
		f->bytes[k] = f->bytes[i];
		f->queued[k] = f->queued[i];
		f->s[k] = f->s[i];
		if (cpus) {
			memmove(&f->steps[k * cpus], &f->steps[i * cpus], cpus * sizeof(uint64_t));
			memmove(&f->cpu_ns[k * cpus], &f->cpu_ns[i * cpus],
				cpus * sizeof(uint64_t));
		}
	}
	f->n = k;
	f->period_ns *= 2;
}

static void grow(struct follow *f)
{
	size_t cpus = meter_cpus(f->m);

	f->cap *= 2;
	f->bytes = realloc(f->bytes, f->cap * sizeof(*f->bytes));
	f->queued = realloc(f->queued, f->cap * sizeof(*f->queued));
	f->s = realloc(f->s, f->cap * sizeof(*f->s));
	if (cpus) {
		f->steps = realloc(f->steps, f->cap * cpus * sizeof(uint64_t));
		f->cpu_ns = realloc(f->cpu_ns, f->cap * cpus * sizeof(uint64_t));
	}
	if (!f->bytes || !f->queued || !f->s || (cpus && (!f->steps || !f->cpu_ns)))
		err(1, "the meter's samples along the stream");
}

/*
 * Sample i as the meter's functions take one: its arrays in the pool, and
 * no CPU's /proc/stat line (a slot's figures need the soakers' counts and
 * the host's busy time alone; the pool's samples are malloc'd, and a
 * pointer left as malloc gave it was written through).
 */
static struct soak_sample *at(struct follow *f, size_t i)
{
	size_t cpus = meter_cpus(f->m);

	f->s[i].steps = cpus ? &f->steps[i * cpus] : NULL;
	f->s[i].cpu_ns = cpus ? &f->cpu_ns[i * cpus] : NULL;
	f->s[i].stat = NULL;
	return &f->s[i];
}

/*
 * A sample counts the bytes that have come: read, and queued to be read.
 * A slot's window is then when its bytes reached this host, a send queue
 * behind the sender's slot; by the bytes read alone it would trail by the
 * receive queue as well (up to 7 MB at full speed across two namespaces
 * here, 3.4 MB with another task on zcs's CPU: about 4 ms). zcs's copy of
 * a slot's bytes follows its window by that queue.
 */
void follow_sample(struct follow *f, uint64_t bytes, int force)
{
	uint64_t now, cpu;
	long queued;

	now = timing_now_ns();
	if (!force && f->n && now - f->s[f->n - 1].ns < f->period_ns)
		return;
	if (f->n == FOLLOW_MAX_SAMPLES)
		thin(f);
	if (f->n == f->cap)
		grow(f);
	cpu = timing_thread_cpu_ns();
	if (f->m && !f->spoiled && meter_take(f->m, at(f, f->n)) < 0) {
		f->spoiled = 1;
		warnx("%s, along the stream: the receiver's figures over the slots are missing",
		      meter_error(f->m));
	}
	queued = net_queued(f->fd);
	if (queued < 0)
		queued = 0;
	f->s[f->n].ns = now;
	/* Never fewer than the sample before: the slot table's end is read, not queued. */
	f->bytes[f->n] = bytes + queued;
	if (f->n && f->bytes[f->n] < f->bytes[f->n - 1])
		f->bytes[f->n] = f->bytes[f->n - 1];
	f->queued[f->n++] = queued;
	f->cost_ns += timing_thread_cpu_ns() - cpu;
	f->taken++;
}

/* The first sample with at least `bytes` received, or n. */
static size_t first_at_or_after(const struct follow *f, uint64_t bytes)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->bytes[mid] < bytes)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int follow_slots(struct follow *f, struct turns *result, const unsigned char *table, size_t len,
		 char *why, size_t why_len)
{
	struct turns_range *ranges;
	size_t n;
	int metered = f->m && !f->spoiled;

	if (turns_table_decode(table, len, result, &ranges, &n, why, why_len) < 0)
		return -1;
	result->n_cpus = metered ? meter_cpus(f->m) : 0;
	f->all = calloc(n ? n : 1, sizeof(*f->all));
	f->measured = calloc(n ? n : 1, sizeof(*f->measured));
	f->loads = calloc((n ? n : 1) * (result->n_cpus ? result->n_cpus : 1), sizeof(*f->loads));
	if (!f->all || !f->measured || !f->loads)
		err(1, "calloc");
	if (metered)
		turns_set_cpus(result, meter_cpu_list(f->m), meter_cpus(f->m));
	f->n_table = n;
	for (size_t i = 0; i < n; i++) {
		/* The samples within the slot's bytes: its guard's end to its end. */
		size_t a = first_at_or_after(f, ranges[i].from);
		size_t b = first_at_or_after(f, ranges[i].to + 1);
		struct turns_slot *sl = &f->all[i];

		*sl = (struct turns_slot){ .arm = ranges[i].arm, .cycle = ranges[i].cycle,
					   .at = i };
		if (b == 0 || a >= b - 1)
			continue;
		b--;
		sl->bytes = f->bytes[b] - f->bytes[a];
		if (metered) {
			double *loads = f->loads + i * result->n_cpus;

			meter_between(f->m, at(f, a), at(f, b), sl->bytes, &sl->fig);
			meter_between_loads(f->m, at(f, a), at(f, b), loads);
			sl->cpu_load = loads;
		}
		sl->fig.ns = f->s[b].ns - f->s[a].ns;
		if (!sl->bytes || !sl->fig.ns)
			continue;
		f->measured[i] = 1;
		turns_add(result, sl);
	}
	free(ranges);
	return 0;
}

void follow_answer(const struct follow *f, const struct turns *result, int fd, const char *peer,
		   int debug)
{
	size_t len, done;
	unsigned char *answer = turns_answer_encode(f->all, f->measured, f->n_table, result->n_cpus,
						    result->cpu, f->loads, &len);

	if (net_write_full(fd, NET_IO_SEND, answer, len, &done, NULL) < 0 && debug)
		warn("%s: the answer to the slot table, after %zu of %zu bytes", peer, done, len);
	free(answer);
}

void follow_print_samples(const struct follow *f, FILE *out)
{
	fprintf(out, "the meter along the stream: %zu samples, every %llu ms or more, taking %.1f ms "
		     "of CPU; the receive queue's median %llu bytes\n",
		f->taken, (unsigned long long)(f->period_ns / 1000000), f->cost_ns / 1e6,
		(unsigned long long)turns_median(f->queued, f->n));
}

void follow_json_samples(const struct follow *f, struct json *j)
{
	json_uint(j, "samples", f->taken);
	json_uint(j, "sample_period_ms", f->period_ns / 1000000);
	json_double(j, "samples_cpu_ms", f->cost_ns / 1e6, 3);
	json_uint(j, "receive_queue_median_bytes", turns_median(f->queued, f->n));
}

void follow_free(struct follow *f)
{
	free(f->bytes);
	free(f->queued);
	free(f->s);
	free(f->steps);
	free(f->cpu_ns);
	free(f->all);
	free(f->loads);
	free(f->measured);
	memset(f, 0, sizeof(*f));
}
