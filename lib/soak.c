#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "opt.h"
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

#define SOAK_WARMUP_PERIODS 2
#define SOAK_CALIBRATION_PERIODS 5
#define SOAK_SPREAD_WARN 0.02
#define SOAK_START_TIMEOUT_NS (10 * NSEC_PER_SEC)

/* Each soaker's count in a cache line of its own, so they do not slow each other. */
struct soak_counter {
	volatile uint64_t steps;
	volatile uint32_t ready;
} __attribute__((aligned(SOAK_LINE_BYTES)));

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
 * between tasks, so even SCHED_IDLE soakers would get a whole session's share
 * against a workload started from another terminal. Each soaker takes a
 * session of its own and sets that session's group to nice 19, leaving the
 * caller's session (and its terminal) alone.
 */
static const char *lower_autogroup(void)
{
	char on = '0';
	int fd = open("/proc/sys/kernel/sched_autogroup_enabled", O_RDONLY);

	if (fd < 0)
		return "autogroup not available";
	if (read(fd, &on, 1) != 1 || on != '1') {
		close(fd);
		return "autogroup off";
	}
	close(fd);
	if (setsid() < 0)
		return "autogroup on, but setsid failed";
	fd = open("/proc/self/autogroup", O_WRONLY);
	if (fd < 0 || write(fd, "19", 2) != 2) {
		if (fd >= 0)
			close(fd);
		return "autogroup on, but its nice could not be set";
	}
	close(fd);
	return "own session group at nice 19";
}

static void __attribute__((noreturn)) soaker_main(int cpu, struct soak_counter *c, pid_t parent,
						  int debug)
{
	struct sched_param sp = { 0 };
	const char *policy = "SCHED_IDLE", *group;
	unsigned char *buf;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	group = lower_autogroup();
	if (cpu_pin(cpu) < 0) {
		warn("soaker: pinning to CPU %d", cpu);
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

int soak_choose_cpus(int n_cpus, int *cpus, int max)
{
	int n = cpu_allowed(cpus, max);

	if (n < 0) {
		warn("sched_getaffinity");
		return -1;
	}
	if (n_cpus > n)
		opt_failx("-N %d: only %d CPU%s available to this process", n_cpus, n,
			  n == 1 ? " is" : "s are");
	return n_cpus ? n_cpus : n;
}

void soak_start(struct soak *s, const int *cpus, int n_cpus, int debug)
{
	uint64_t deadline = timing_now_ns() + SOAK_START_TIMEOUT_NS;
	pid_t parent = getpid();

	s->n_cpus = n_cpus;
	s->cpus = calloc(n_cpus, sizeof(*s->cpus));
	s->pids = calloc(n_cpus, sizeof(*s->pids));
	s->counters = mmap(NULL, n_cpus * sizeof(*s->counters), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!s->cpus || !s->pids || s->counters == MAP_FAILED)
		err(1, "allocating soakers");
	memcpy(s->cpus, cpus, n_cpus * sizeof(*cpus));
	fflush(NULL);
	for (int i = 0; i < n_cpus; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			soak_stop(s);
			err(1, "fork");
		}
		if (pid == 0)
			soaker_main(cpus[i], &s->counters[i], parent, debug);
		s->pids[i] = pid;
	}
	for (int i = 0; i < n_cpus; i++) {
		while (!s->counters[i].ready) {
			if (waitpid(s->pids[i], NULL, WNOHANG) == s->pids[i]) {
				s->pids[i] = 0;
				soak_stop(s);
				errx(1, "the soaker for CPU %d failed to start", cpus[i]);
			}
			if (timing_now_ns() > deadline) {
				soak_stop(s);
				errx(1, "the soaker for CPU %d did not start within %llu s", cpus[i],
				     SOAK_START_TIMEOUT_NS / NSEC_PER_SEC);
			}
			usleep(1000);
		}
	}
}

void soak_stop(struct soak *s)
{
	if (!s->pids)
		return;
	for (int i = 0; i < s->n_cpus; i++)
		if (s->pids[i] > 0)
			kill(s->pids[i], SIGKILL);
	for (int i = 0; i < s->n_cpus; i++)
		if (s->pids[i] > 0)
			while (waitpid(s->pids[i], NULL, 0) < 0 && errno == EINTR)
				;
	munmap(s->counters, s->n_cpus * sizeof(*s->counters));
	free(s->pids);
	free(s->cpus);
	s->pids = NULL;
	s->cpus = NULL;
	s->counters = NULL;
}

void soak_sample_init(const struct soak *s, struct soak_sample *smp)
{
	smp->ns = 0;
	smp->steps = calloc(s->n_cpus, sizeof(*smp->steps));
	if (!smp->steps)
		err(1, "calloc");
}

void soak_sample_free(struct soak_sample *smp)
{
	free(smp->steps);
	smp->steps = NULL;
}

void soak_take(const struct soak *s, struct soak_sample *smp)
{
	smp->ns = timing_now_ns();
	for (int i = 0; i < s->n_cpus; i++)
		smp->steps[i] = s->counters[i].steps;
}

double soak_rate_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i)
{
	return (double)(b->steps[cpu_i] - a->steps[cpu_i]) * NSEC_PER_SEC / (double)(b->ns - a->ns);
}

double soak_rate(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	double total = 0;

	for (int i = 0; i < n_cpus; i++)
		total += soak_rate_one(a, b, i);
	return total;
}

double soak_load(double measured_per_sec, double calibrated_per_sec)
{
	return 1.0 - measured_per_sec / calibrated_per_sec;
}

#define RECALIBRATE "run 'cyclesoak -C' on an idle system"

int soak_read_counts(const char *path, int n_cpus, double *per_sec, char *errbuf, size_t errlen)
{
	char line1[64] = "", line2[64] = "", *end;
	unsigned long long rate;
	long file_cpus;
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(errbuf, errlen, "%s: %s: %s", path, strerror(errno), RECALIBRATE);
		return -1;
	}
	if (!fgets(line1, sizeof(line1), f)) {
		fclose(f);
		snprintf(errbuf, errlen, "%s is empty: %s", path, RECALIBRATE);
		return -1;
	}
	if (!fgets(line2, sizeof(line2), f))
		line2[0] = '\0';
	fclose(f);
	errno = 0;
	rate = strtoull(line1, &end, 10);
	if (end == line1 || line1[0] == '-' || errno || (*end != '\n' && *end != '\0')) {
		snprintf(errbuf, errlen, "%s: the first line is not a count of loops/sec: %s", path,
			 RECALIBRATE);
		return -1;
	}
	if (rate == 0) {
		snprintf(errbuf, errlen, "%s: the calibrated rate is 0: %s", path, RECALIBRATE);
		return -1;
	}
	/* A 2001 file has no second line; then there is no CPU count to check. */
	if (line2[0] != '\0') {
		if (sscanf(line2, "cpus %ld", &file_cpus) != 1 || file_cpus < 1) {
			snprintf(errbuf, errlen, "%s: the second line is not 'cpus N': %s", path,
				 RECALIBRATE);
			return -1;
		}
		if (file_cpus != n_cpus) {
			snprintf(errbuf, errlen,
				 "%s was calibrated on %ld CPU%s and this run uses %d: "
				 "calibrate with 'cyclesoak -C -N %d' or measure with -N %ld",
				 path, file_cpus, file_cpus == 1 ? "" : "s", n_cpus, n_cpus, file_cpus);
			return -1;
		}
	}
	*per_sec = rate;
	return 0;
}

int soak_write_counts(const char *path, double per_sec, int n_cpus)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%.0f\ncpus %d\n", per_sec, n_cpus);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		fclose(f);
		unlink(tmp);
		return -1;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

void soak_sleep_until(uint64_t deadline_ns, volatile sig_atomic_t *stop)
{
	struct timespec ts = { .tv_sec = deadline_ns / NSEC_PER_SEC,
			       .tv_nsec = deadline_ns % NSEC_PER_SEC };

	while (!*stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int soak_calibrate(const int *cpus, int n_cpus, unsigned period_ms, int debug,
		   volatile sig_atomic_t *stop)
{
	double rates[SOAK_CALIBRATION_PERIODS], spread;
	struct soak s;
	struct soak_sample a, b, t;
	uint64_t period_ns = period_ms * 1000000ULL, next;

	soak_start(&s, cpus, n_cpus, debug);
	soak_sample_init(&s, &a);
	soak_sample_init(&s, &b);
	soak_take(&s, &a);
	next = a.ns;
	for (int i = 0; i < SOAK_WARMUP_PERIODS + SOAK_CALIBRATION_PERIODS && !*stop; i++) {
		double rate;

		next += period_ns;
		soak_sleep_until(next, stop);
		if (*stop)
			break;
		soak_take(&s, &b);
		rate = soak_rate(&a, &b, n_cpus);
		printf("calibrating: %.0f loops/sec\n", rate);
		if (i >= SOAK_WARMUP_PERIODS)
			rates[i - SOAK_WARMUP_PERIODS] = rate;
		t = a, a = b, b = t;
	}
	soak_sample_free(&a);
	soak_sample_free(&b);
	soak_stop(&s);
	if (*stop)
		return 1;
	qsort(rates, SOAK_CALIBRATION_PERIODS, sizeof(rates[0]), compare_doubles);
	spread = (rates[SOAK_CALIBRATION_PERIODS - 1] - rates[0]) /
		 rates[SOAK_CALIBRATION_PERIODS / 2];
	if (spread > SOAK_SPREAD_WARN)
		warnx("warning: the calibration samples spread by %.1f%% (more than %.0f%%): "
		      "is the system idle?", spread * 100, SOAK_SPREAD_WARN * 100);
	if (soak_write_counts(SOAK_COUNTS_FILE, rates[SOAK_CALIBRATION_PERIODS / 2], n_cpus) < 0)
		err(1, "writing %s", SOAK_COUNTS_FILE);
	printf("calibrated OK.  %.0f loops/sec\n", rates[SOAK_CALIBRATION_PERIODS / 2]);
	return 0;
}
