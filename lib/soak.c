/*
 * soak: the soakers, a process pinned to each CPU at idle priority, their
 * start under the host's meter lock, their end, and the samples of their counts.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "procstat.h"
#include "soak.h"
#include "timing.h"

/*
 * One step of soaker work: a dependent multiply-add chain, then one cache line
 * of a 1 MiB buffer read, and every fourth step written. The buffer is about
 * an L2 cache's size, so a workload that takes memory bandwidth or cache slows
 * the soakers, and shows up as load, as well as one that takes cycles.
 */
#define SOAK_SPIN 300
#define SOAK_BUF_BYTES (1 << 20)
#define SOAK_LINE_BYTES 64
#define SOAK_DIRTY_EVERY 4
/* How long the soakers may take to start counting. */
#define SOAK_START_TIMEOUT_NS (10 * NSEC_PER_SEC)

/* Each soaker's count in a cache line of its own, so they do not slow each other. */
struct soak_counter {
	volatile uint64_t steps;
	volatile uint32_t ready;
	volatile pid_t pid;
} __attribute__((aligned(SOAK_LINE_BYTES)));

/* What the group process tells the meter, and one counter per soaker. */
struct soak_shared {
	char group[SOAK_LINE_BYTES];
	struct soak_counter counters[];
};

static size_t shared_bytes(int n_cpus)
{
	return sizeof(struct soak_shared) + n_cpus * sizeof(struct soak_counter);
}

static void __attribute__((noreturn)) soak_loop(struct soak_counter *c, unsigned char *buf)
{
	uint64_t steps = 0, x = 1;
	size_t pos = 0;

	for (;;) {
		for (int i = 0; i < SOAK_SPIN; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
		x ^= buf[pos];
		if (steps % SOAK_DIRTY_EVERY == 0)
			buf[pos] = (unsigned char)x;
		pos = (pos + SOAK_LINE_BYTES) & (SOAK_BUF_BYTES - 1);
		c->steps = ++steps;
	}
}

/*
 * With autogroup on, CPU time is shared between sessions before it is shared
 * between tasks, so SCHED_IDLE soakers would still get a whole session's share
 * against a workload started from another terminal. The group process takes a
 * session of its own, sets that session's group to nice 19 and forks every
 * soaker into it: one group at nice 19 weighs 15 in all, spread over the CPUs,
 * where a group per soaker would weigh 15 on each. The caller's session (and
 * its terminal) are left alone.
 */
static const char *lower_autogroup(void)
{
	char on = '0';
	int fd = open("/proc/sys/kernel/sched_autogroup_enabled", O_RDONLY);

	if (setsid() < 0)
		return "setsid failed";
	if (fd < 0)
		return "autogroup not available";
	if (read(fd, &on, 1) != 1 || on != '1') {
		close(fd);
		return "autogroup off";
	}
	close(fd);
	fd = open("/proc/self/autogroup", O_WRONLY);
	if (fd < 0 || write(fd, "19", 2) != 2) {
		if (fd >= 0)
			close(fd);
		return "autogroup on, but its nice could not be set";
	}
	close(fd);
	return "in the soakers' session group at nice 19";
}

/*
 * A soaker is forked by the group process, which then exits; the meter is a
 * child subreaper, so the soaker becomes its child. Only then can it ask to
 * die with its parent, the meter.
 */
static void __attribute__((noreturn)) soaker_main(int cpu, struct soak_counter *c, pid_t meter,
						  const char *group, int debug)
{
	struct sched_param sp = { 0 };
	const char *policy = "SCHED_IDLE";
	uint64_t deadline = timing_now_ns() + SOAK_START_TIMEOUT_NS;
	unsigned char *buf;

	while (getppid() != meter) {
		if (timing_now_ns() > deadline)
			_exit(1);
		usleep(100);
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != meter)
		_exit(1);
	if (cpu_pin(cpu) < 0) {
		fprintf(stderr, "%s: soaker: pinning to CPU %d: %s\n",
			program_invocation_short_name, cpu, strerror(errno));
		_exit(1);
	}
	if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0) {
		policy = "nice 19 (SCHED_IDLE refused)";
		setpriority(PRIO_PROCESS, 0, 19);
	}
	buf = malloc(SOAK_BUF_BYTES);
	if (!buf)
		_exit(1);
	memset(buf, 1, SOAK_BUF_BYTES);
	if (debug)
		fprintf(stderr, "%s: soaker %d on CPU %d: %s, %s\n", program_invocation_short_name,
			(int)getpid(), cpu, policy, group);
	c->ready = 1;
	soak_loop(c, buf);
}

static void __attribute__((noreturn)) group_main(struct soak *m, pid_t meter)
{
	const char *group;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != meter)
		_exit(1);
	group = lower_autogroup();
	snprintf(m->shared->group, sizeof(m->shared->group), "%s", group);
	for (int i = 0; i < m->n_cpus; i++) {
		pid_t pid = fork();

		if (pid < 0)
			_exit(1);
		if (pid == 0)
			soaker_main(m->cpus[i], &m->shared->counters[i], meter, group, m->debug);
		m->shared->counters[i].pid = pid;
	}
	_exit(0);
}

int soak_open(struct soak *m, int n_cpus, const struct cpu_list *set, int debug)
{
	char allowed[256];
	int n;

	*m = (struct soak){ .debug = debug, .lock_fd = -1 };
	m->cpus = calloc(CPU_MAX_INDEX + 1, sizeof(*m->cpus));
	if (!m->cpus) {
		snprintf(m->err, sizeof(m->err), "allocating the meter: %s", strerror(errno));
		return -1;
	}
	n = cpu_allowed(m->cpus, CPU_MAX_INDEX + 1);
	if (n < 0) {
		snprintf(m->err, sizeof(m->err), "sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	if (n_cpus > n) {
		snprintf(m->err, sizeof(m->err), "only %d CPU%s available to this process", n,
			 n == 1 ? " is" : "s are");
		return SOAK_TOO_MANY_CPUS;
	}
	m->n_cpus = n_cpus ? n_cpus : n;
	if (!set || !set->n)
		return 0;
	/* -U: those CPUs, each one this process may run on. */
	for (int i = 0; i < set->n; i++) {
		int k = 0;

		while (k < n && m->cpus[k] != set->cpu[i])
			k++;
		if (k == n) {
			snprintf(m->err, sizeof(m->err), "CPU %d is not one this process may run on (%s)",
				 set->cpu[i], cpu_list_text(m->cpus, n, allowed, sizeof(allowed)));
			return SOAK_TOO_MANY_CPUS;
		}
	}
	memcpy(m->cpus, set->cpu, set->n * sizeof(*m->cpus));
	m->n_cpus = set->n;
	return 0;
}

void soak_announce(const struct soak *m)
{
	printf("using %d CPU%s\n", m->n_cpus, m->n_cpus == 1 ? "" : "s");
}

/* Has soaker i died or stopped? Says so in err, and reaps it if it died. */
static int soaker_failed(struct soak *m, int i)
{
	int st;
	pid_t got = m->pids[i] > 0 ? waitpid(m->pids[i], &st, WNOHANG | WUNTRACED) : 0;

	if (m->pids[i] <= 0) {
		snprintf(m->err, sizeof(m->err), "the soaker for CPU %d is gone", m->cpus[i]);
		return 1;
	}
	if (got != m->pids[i])
		return 0;
	if (WIFSTOPPED(st)) {
		snprintf(m->err, sizeof(m->err),
			 "the soaker on CPU %d was stopped (%s): its count is no measurement",
			 m->cpus[i], strsignal(WSTOPSIG(st)));
		return 1;
	}
	m->pids[i] = 0;
	if (WIFSIGNALED(st))
		snprintf(m->err, sizeof(m->err), "the soaker on CPU %d died (%s)", m->cpus[i],
			 strsignal(WTERMSIG(st)));
	else
		snprintf(m->err, sizeof(m->err), "the soaker on CPU %d exited with status %d",
			 m->cpus[i], WEXITSTATUS(st));
	return 1;
}

/* Undo a failed start, keeping "what: strerror(errnum)" (or just what) in err. */
static int fail_start(struct soak *m, const char *what, int errnum)
{
	char why[sizeof(m->err)];

	if (errnum)
		snprintf(why, sizeof(why), "%s: %s", what, strerror(errnum));
	else
		snprintf(why, sizeof(why), "%s", what);
	soak_close(m);
	memcpy(m->err, why, sizeof(why));
	return -1;
}

int soak_start(struct soak *m)
{
	long wait_secs = hostlock_wait_secs(m->err, sizeof(m->err));
	uint64_t deadline;
	pid_t meter = getpid(), group;
	char what[96];
	int st;

	/* The host's meter, once it is free (ZC_METER_WAIT), and then the soakers' start. */
	if (wait_secs < 0 ||
	    hostlock_take(SOAK_LOCK_FILE, m->cpus, m->n_cpus, &m->lock_fd, wait_secs, stderr, m->err,
			  sizeof(m->err)) < 0)
		return -1;
	deadline = timing_now_ns() + SOAK_START_TIMEOUT_NS;
	m->pids = calloc(m->n_cpus, sizeof(*m->pids));
	m->clocks = calloc(m->n_cpus, sizeof(*m->clocks));
	m->shared = mmap(NULL, shared_bytes(m->n_cpus), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m->shared == MAP_FAILED)
		m->shared = NULL;
	if (!m->pids || !m->clocks || !m->shared)
		return fail_start(m, "allocating the soakers", errno);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return fail_start(m, "PR_SET_CHILD_SUBREAPER", errno);
	fflush(NULL);
	group = fork();
	if (group < 0)
		return fail_start(m, "fork", errno);
	if (group == 0)
		group_main(m, meter);
	/* Once the group process is reaped, its soakers are this process's children. */
	while (waitpid(group, &st, 0) < 0 && errno == EINTR)
		;
	for (int i = 0; i < m->n_cpus; i++)
		m->pids[i] = m->shared->counters[i].pid;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return fail_start(m, "the soakers could not be forked", 0);
	for (int i = 0; i < m->n_cpus; i++) {
		while (!m->shared->counters[i].ready) {
			if (soaker_failed(m, i))
				return fail_start(m, m->err, 0);
			if (timing_now_ns() > deadline) {
				snprintf(what, sizeof(what),
					 "the soaker for CPU %d did not start within %llu s",
					 m->cpus[i], SOAK_START_TIMEOUT_NS / NSEC_PER_SEC);
				return fail_start(m, what, 0);
			}
			usleep(1000);
		}
		st = clock_getcpuclockid(m->pids[i], &m->clocks[i]);
		if (st != 0) {
			snprintf(what, sizeof(what), "the CPU clock of the soaker for CPU %d",
				 m->cpus[i]);
			return fail_start(m, what, st);
		}
	}
	if (m->debug > 1)
		fprintf(stderr, "%s: soakers: %s\n", program_invocation_short_name,
			m->shared->group);
	return 0;
}

void soak_kill(struct soak *m)
{
	if (!m->pids)
		return;
	for (int i = 0; i < m->n_cpus; i++)
		if (m->pids[i] > 0)
			kill(m->pids[i], SIGKILL);
	for (int i = 0; i < m->n_cpus; i++)
		if (m->pids[i] > 0) {
			while (waitpid(m->pids[i], NULL, 0) < 0 && errno == EINTR)
				;
			m->pids[i] = 0;
		}
}

void soak_close(struct soak *m)
{
	soak_kill(m);
	if (m->shared)
		munmap(m->shared, shared_bytes(m->n_cpus));
	free(m->pids);
	free(m->clocks);
	free(m->cpus);
	if (m->lock_fd >= 0)
		close(m->lock_fd);
	m->lock_fd = -1;
	m->pids = NULL;
	m->clocks = NULL;
	m->cpus = NULL;
	m->shared = NULL;
}

int soak_sample_init(const struct soak *m, struct soak_sample *smp)
{
	smp->ns = 0;
	smp->steps = calloc(m->n_cpus, sizeof(*smp->steps));
	smp->cpu_ns = calloc(m->n_cpus, sizeof(*smp->cpu_ns));
	smp->stat = calloc(m->n_cpus, sizeof(*smp->stat));
	if (smp->steps && smp->cpu_ns && smp->stat)
		return 0;
	soak_sample_free(smp);
	return -1;
}

void soak_sample_free(struct soak_sample *smp)
{
	free(smp->steps);
	free(smp->cpu_ns);
	free(smp->stat);
	memset(smp, 0, sizeof(*smp));
}

void soak_sample_copy(struct soak_sample *dst, const struct soak_sample *src, int n_cpus)
{
	dst->ns = src->ns;
	dst->stat_busy_ns = src->stat_busy_ns;
	dst->stat_all_ns = src->stat_all_ns;
	memcpy(dst->steps, src->steps, n_cpus * sizeof(*dst->steps));
	memcpy(dst->cpu_ns, src->cpu_ns, n_cpus * sizeof(*dst->cpu_ns));
	if (dst->stat && src->stat)
		memcpy(dst->stat, src->stat, n_cpus * sizeof(*dst->stat));
}

int soak_take(struct soak *m, struct soak_sample *smp)
{
	/* Never started, or closed by a failed start: nothing to read (it read NULL). */
	if (!m->shared || !m->cpus) {
		snprintf(m->err, sizeof(m->err), "the meter is not running");
		return -1;
	}
	procstat_read(m->cpus, m->n_cpus, smp->stat, &smp->stat_busy_ns, &smp->stat_all_ns);
	smp->ns = timing_now_ns();
	for (int i = 0; i < m->n_cpus; i++) {
		struct timespec ts;

		smp->steps[i] = m->shared->counters[i].steps;
		if (soaker_failed(m, i))
			return -1;
		if (clock_gettime(m->clocks[i], &ts) != 0) {
			snprintf(m->err, sizeof(m->err), "the CPU time of the soaker on CPU %d: %s",
				 m->cpus[i], strerror(errno));
			return -1;
		}
		smp->cpu_ns[i] = (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	}
	return 0;
}
