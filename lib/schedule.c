/* schedule: the turns' slots, arm by arm, and the meter's samples at their edges. */
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedule.h"
#include "timing.h"

void schedule_init(struct schedule *s, unsigned n_arms, long slot_ms, struct meter *m)
{
	memset(s, 0, sizeof(*s));
	s->n_arms = n_arms;
	s->slot_ms = slot_ms;
	s->slot_ns = (uint64_t)slot_ms * 1000000ULL;
	s->guard_ns = s->slot_ns / SCHEDULE_GUARD_SHARE;
	s->at = n_arms;
	s->cycle = UINT32_MAX;
	s->seed = (unsigned)timing_now_ns() ^ (unsigned)getpid();
	s->meter = m;
	if (m && (meter_sample_init(m, &s->a) < 0 || meter_sample_init(m, &s->b) < 0 ||
		  !(s->loads = calloc(meter_cpus(m), sizeof(*s->loads)))))
		err(1, "the meter's samples");
}

enum schedule_due schedule_due(const struct schedule *s, uint64_t now)
{
	if (now >= s->slot_start_ns + s->slot_ns)
		return SCHEDULE_SLOT_ENDS;
	if (!s->measuring && now >= s->slot_start_ns + s->guard_ns)
		return SCHEDULE_GUARD_ENDS;
	return SCHEDULE_NOTHING;
}

/* The next cycle's order of the arms, shuffled (Fisher-Yates). */
static void shuffle(struct schedule *s)
{
	for (unsigned i = 0; i < s->n_arms; i++)
		s->order[i] = i;
	for (unsigned i = s->n_arms - 1; i > 0; i--) {
		unsigned j = rand_r(&s->seed) % (i + 1), t = s->order[i];

		s->order[i] = s->order[j];
		s->order[j] = t;
	}
}

unsigned schedule_next(struct schedule *s, uint64_t now)
{
	if (s->at == s->n_arms) {
		s->at = 0;
		s->cycle++;
		shuffle(s);
	}
	s->cur = s->order[s->at++];
	s->slot_start_ns = now;
	s->measuring = 0;
	s->slots++;
	return s->cur;
}

/* A sample of the meter now; without one, or once one failed, the time alone. */
static void sample(struct schedule *s, struct soak_sample *smp)
{
	uint64_t cpu = timing_thread_cpu_ns();

	if (s->meter && !s->spoiled && meter_take(s->meter, smp) < 0)
		s->spoiled = 1;
	if (!schedule_metered(s))
		smp->ns = timing_now_ns();
	s->cost_ns += timing_thread_cpu_ns() - cpu;
}

void schedule_guard_ends(struct schedule *s)
{
	sample(s, &s->a);
	s->measuring = 1;
}

int schedule_slot_ends(struct schedule *s, uint64_t bytes, struct turns *t, struct turns_slot *sl)
{
	if (!s->measuring) {
		s->short_slots++;
		return 0;
	}
	sample(s, &s->b);
	*sl = (struct turns_slot){ .arm = s->cur, .cycle = s->cycle, .at = t->n_slots, .bytes = bytes };
	if (schedule_metered(s)) {
		meter_between(s->meter, &s->a, &s->b, bytes, &sl->fig);
		meter_between_loads(s->meter, &s->a, &s->b, s->loads);
		sl->cpu_load = s->loads;
		if (!t->n_slots && !t->n_cpu)
			turns_set_cpus(t, meter_cpu_list(s->meter), meter_cpus(s->meter));
	} else {
		t->n_cpus = 0;
	}
	sl->fig.ns = s->b.ns - s->a.ns;
	return 1;
}

int schedule_metered(const struct schedule *s)
{
	return s->meter && !s->spoiled;
}

void schedule_free(struct schedule *s)
{
	if (s->meter) {
		soak_sample_free(&s->a);
		soak_sample_free(&s->b);
	}
	free(s->loads);
	s->loads = NULL;
	s->meter = NULL;
}

FILE *schedule_events_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "a");
	if (!f) {
		close(fd);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

static void event_tail(FILE *f, uint64_t offset, const char *peer, const char *name)
{
	fprintf(f, " offset %llu", (unsigned long long)offset);
	if (peer)
		fprintf(f, " peer %s", peer);
	if (name)
		fprintf(f, " name %s", name);
	fprintf(f, "\n");
}

void schedule_event_slot(FILE *f, const struct schedule *s, const char *name, uint64_t offset,
			 const char *peer)
{
	if (!f)
		return;
	fprintf(f, "slot %llu cycle %u arm %u time %.6f", (unsigned long long)s->slots, s->cycle + 1,
		s->cur + 1, s->slot_start_ns / 1e9);
	event_tail(f, offset, peer, name);
}

void schedule_event_end(FILE *f, const struct schedule *s, uint64_t offset, const char *peer)
{
	if (!f)
		return;
	fprintf(f, "end slots %llu time %.6f", (unsigned long long)s->slots, timing_now_ns() / 1e9);
	event_tail(f, offset, peer, NULL);
}
