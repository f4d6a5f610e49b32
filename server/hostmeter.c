/*
 * zcs -c: the host's meter, shared by every connection (hostmeter.h).
 */
#include <err.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hostmeter.h"
#include "lib/timing.h"

struct hostmeter *hostmeter_start(int n_cpus, const struct cpu_list *set, long tare_ms, int debug)
{
	struct hostmeter *hm = calloc(1, sizeof(*hm));

	if (hm)
		hm->board = mmap(NULL, sizeof(*hm->board), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!hm || hm->board == MAP_FAILED)
		err(1, "allocating the meter");
	hm->tare_ms = tare_ms;
	meter_start_or_exit(&hm->m, n_cpus, set, debug);
	if (meter_ring_init(&hm->m, &hm->ring, tare_ms, HOSTMETER_PERIOD_MS) < 0)
		meter_die(&hm->m);
	return hm;
}

void hostmeter_warm_up(struct hostmeter *hm)
{
	for (long ms = 0; ms < hm->tare_ms; ms += HOSTMETER_PERIOD_MS) {
		usleep(HOSTMETER_PERIOD_MS * 1000);
		hostmeter_sample(hm);
	}
}

void hostmeter_sample(struct hostmeter *hm)
{
	if (meter_ring_take(&hm->m, &hm->ring) < 0)
		meter_die(&hm->m);
}

void hostmeter_wait(struct hostmeter *hm, int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };

	while (poll(&pfd, 1, HOSTMETER_PERIOD_MS) <= 0 || (pfd.revents & POLLIN) == 0)
		hostmeter_sample(hm);
}

int hostmeter_accepted(struct hostmeter *hm, uint64_t *accepted_as)
{
	int shared;

	if (meter_ring_tare(&hm->m, &hm->ring, hm->tare_ms) < 0)
		meter_die(&hm->m);
	shared = __atomic_add_fetch(&hm->board->open, 1, __ATOMIC_SEQ_CST) > 1 ||
		 __atomic_load_n(&hm->board->last_end_ns, __ATOMIC_SEQ_CST) >= hm->m.tare_from_ns;
	*accepted_as = __atomic_add_fetch(&hm->board->accepted, 1, __ATOMIC_SEQ_CST);
	return shared;
}

void hostmeter_not_served(struct hostmeter *hm)
{
	__atomic_sub_fetch(&hm->board->open, 1, __ATOMIC_SEQ_CST);
}

int hostmeter_reaped(struct hostmeter *hm, pid_t pid)
{
	if (meter_reaped(&hm->m, pid))
		return 1;
	hostmeter_ended(hm);
	return 0;
}

void hostmeter_ended(struct hostmeter *hm)
{
	__atomic_sub_fetch(&hm->board->open, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&hm->board->last_end_ns, timing_now_ns(), __ATOMIC_SEQ_CST);
}

const struct soak_figures *hostmeter_window(struct hostmeter *hm, const char *peer,
					    uint64_t accepted_as, uint64_t bytes,
					    struct soak_figures *fig, int *shared)
{
	if (meter_mark(&hm->m, METER_LAST_BYTE) < 0) {
		warnx("%s: %s during the transfer: no load figure", peer, meter_error(&hm->m));
		return NULL;
	}
	if (__atomic_load_n(&hm->board->accepted, __ATOMIC_SEQ_CST) != accepted_as)
		*shared = 1;
	meter_figures(&hm->m, 0, bytes, fig);
	return fig;
}

int hostmeter_span_open(struct hostmeter *hm, struct hostmeter_span *span)
{
	struct meter *m = &hm->m;
	int shared = hostmeter_accepted(hm, &span->accepted_as);

	if (meter_keep_opening(m, &span->opening) < 0)
		meter_die(m);
	return shared;
}

const struct soak_figures *hostmeter_span_close(struct hostmeter *hm, struct hostmeter_span *span,
						const char *peer, uint64_t bytes,
						struct soak_figures *fig, int *shared)
{
	const struct soak_figures *f;

	meter_restore_opening(&hm->m, &span->opening);
	f = hostmeter_window(hm, peer, span->accepted_as, bytes, fig, shared);
	hostmeter_ended(hm);
	return f;
}
