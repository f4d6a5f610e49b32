#include <errno.h>
#include <math.h>
#include <pwd.h>
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
/* Below this share of their CPUs during calibration, something else was running. */
#define SOAK_IDLE_SHARE_WARN 0.98
#define SOAK_START_TIMEOUT_NS (10 * NSEC_PER_SEC)
/* A period this much longer than asked (and at least 50 ms) is a stall, not a sample. */
#define SOAK_STALL_FACTOR 1.5
#define SOAK_STALL_MIN_NS (50 * 1000000ULL)

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

int soak_open(struct soak *m, int n_cpus, int debug)
{
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

/* The name of process pid, from /proc, or "?". */
static void process_name(pid_t pid, char *name, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f || !fgets(name, size, f))
		snprintf(name, size, "?");
	name[strcspn(name, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* The name of user uid, or its number. */
static void user_name(uid_t uid, char *name, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(name, size, "%s", pw->pw_name);
	else
		snprintf(name, size, "%u", (unsigned)uid);
}

/* The user process pid runs as, or "?". */
static void process_user(pid_t pid, char *name, size_t size)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (pid > 0 && stat(path, &st) == 0)
		user_name(st.st_uid, name, size);
	else
		snprintf(name, size, "?");
}

/*
 * A lock file that cannot be used: what it is, whose, and who can remove
 * it. Another user can plant one (a link, a FIFO, a file of theirs that
 * others cannot open); it is refused, never followed or opened for what it
 * points to.
 */
static int lock_refused(struct soak *m, const char *what)
{
	struct stat st;
	char owner[64] = "?";

	if (lstat(SOAK_LOCK_FILE, &st) == 0)
		user_name(st.st_uid, owner, sizeof(owner));
	snprintf(m->err, sizeof(m->err), "%s (the lock that keeps two meters apart) %s; it is user %s's: "
		 "they or root can remove it", SOAK_LOCK_FILE, what, owner);
	return -1;
}

/*
 * The host's meter lock (SOAK_LOCK_FILE). The file is made readable and
 * writable by all, whatever the umask, so that every user's meters share it;
 * one that exists is opened without O_CREAT, which fs.protected_regular
 * would refuse in /tmp for a file of another user's. A symbolic link or
 * anything but a regular file there is refused (O_NOFOLLOW, then fstat):
 * where fs.protected_symlinks is 0, root would otherwise lock whatever
 * another user's link names.
 */
static int take_host_lock(struct soak *m)
{
	const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char name[64], user[64], what[160];
	struct stat st;
	int fd = open(SOAK_LOCK_FILE, flags);

	if (fd < 0 && errno == ENOENT) {
		fd = open(SOAK_LOCK_FILE, flags | O_CREAT | O_EXCL, 0666);
		if (fd >= 0)
			fchmod(fd, 0666);
		else if (errno == EEXIST)
			fd = open(SOAK_LOCK_FILE, flags);
	}
	if (fd < 0 && errno == ELOOP)
		return lock_refused(m, "is a symbolic link");
	if (fd < 0 && errno == EACCES)
		return lock_refused(m, "cannot be opened: Permission denied");
	if (fd < 0) {
		snprintf(m->err, sizeof(m->err), "%s (the lock that keeps two meters apart): %s",
			 SOAK_LOCK_FILE, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return lock_refused(m, "is not a regular file");
	}
	if (fcntl(fd, F_SETLK, &fl) == 0) {
		m->lock_fd = fd;
		return 0;
	}
	if (errno != EACCES && errno != EAGAIN) {
		snprintf(m->err, sizeof(m->err), "locking %s: %s", SOAK_LOCK_FILE, strerror(errno));
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		fl.l_pid = 0;
	close(fd);
	process_name(fl.l_pid, name, sizeof(name));
	process_user(fl.l_pid, user, sizeof(user));
	snprintf(what, sizeof(what), "pid %d (%s, user %s)", (int)fl.l_pid, name, user);
	snprintf(m->err, sizeof(m->err),
		 "another meter is running on this host: %s holds %s; two meters count "
		 "each other's soakers, and both would be wrong", what, SOAK_LOCK_FILE);
	return -1;
}

int soak_start(struct soak *m)
{
	uint64_t deadline = timing_now_ns() + SOAK_START_TIMEOUT_NS;
	pid_t meter = getpid(), group;
	char what[96];
	int st;

	if (take_host_lock(m) < 0)
		return -1;
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
	if (smp->steps && smp->cpu_ns)
		return 0;
	soak_sample_free(smp);
	return -1;
}

void soak_sample_free(struct soak_sample *smp)
{
	free(smp->steps);
	free(smp->cpu_ns);
	smp->steps = NULL;
	smp->cpu_ns = NULL;
}

void soak_sample_copy(struct soak_sample *dst, const struct soak_sample *src, int n_cpus)
{
	dst->ns = src->ns;
	dst->stat_busy_ns = src->stat_busy_ns;
	dst->stat_all_ns = src->stat_all_ns;
	memcpy(dst->steps, src->steps, n_cpus * sizeof(*dst->steps));
	memcpy(dst->cpu_ns, src->cpu_ns, n_cpus * sizeof(*dst->cpu_ns));
}

/* Ticks in ns, divided first: ticks x 10^9 would pass 2^64 after 1.8e10 ticks. */
static uint64_t ticks_ns(uint64_t ticks, long ticks_per_sec)
{
	return ticks / ticks_per_sec * NSEC_PER_SEC + ticks % ticks_per_sec * NSEC_PER_SEC / ticks_per_sec;
}

int soak_parse_proc_stat(FILE *f, const int *cpus, int n_cpus, long ticks_per_sec,
			 uint64_t *busy_ns, uint64_t *all_ns)
{
	unsigned long long v[8];
	uint64_t busy = 0, all = 0;
	char line[512];
	int cpu, at;

	if (ticks_per_sec <= 0)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* "cpuN", N a number right after "cpu": not the "cpu " line of all CPUs. */
		if (sscanf(line, "cpu%n%d %llu %llu %llu %llu %llu %llu %llu %llu", &at, &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 ||
		    line[at] < '0' || line[at] > '9')
			continue;
		for (int i = 0; i < n_cpus; i++) {
			if (cpus[i] != cpu)
				continue;
			busy += v[0] + v[1] + v[2] + v[5] + v[6];
			all += v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		}
	}
	*busy_ns = ticks_ns(busy, ticks_per_sec);
	*all_ns = ticks_ns(all, ticks_per_sec);
	return 0;
}

/* The soaked CPUs' lines of /proc/stat; 0 and 0 if it cannot be read. */
static void read_proc_stat(const struct soak *m, struct soak_sample *smp)
{
	FILE *f = fopen("/proc/stat", "r");

	smp->stat_busy_ns = smp->stat_all_ns = 0;
	if (!f)
		return;
	if (soak_parse_proc_stat(f, m->cpus, m->n_cpus, sysconf(_SC_CLK_TCK), &smp->stat_busy_ns,
				 &smp->stat_all_ns) < 0)
		smp->stat_busy_ns = smp->stat_all_ns = 0;
	fclose(f);
}

int soak_take(struct soak *m, struct soak_sample *smp)
{
	read_proc_stat(m, smp);
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

double soak_rate_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i)
{
	return (double)(b->steps[cpu_i] - a->steps[cpu_i]) * NSEC_PER_SEC / (double)(b->ns - a->ns);
}

/* The sum over every soaker of a per-soaker figure. */
static double sum_cpus(double (*one)(const struct soak_sample *, const struct soak_sample *, int),
		       const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	double total = 0;

	for (int i = 0; i < n_cpus; i++)
		total += one(a, b, i);
	return total;
}

double soak_rate(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	return sum_cpus(soak_rate_one, a, b, n_cpus);
}

double soak_cpu_share_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i)
{
	return (double)(b->cpu_ns[cpu_i] - a->cpu_ns[cpu_i]) / (double)(b->ns - a->ns);
}

double soak_cpu_share(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	return sum_cpus(soak_cpu_share_one, a, b, n_cpus) / n_cpus;
}

double soak_idle_rate_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i)
{
	uint64_t cpu_ns = b->cpu_ns[cpu_i] - a->cpu_ns[cpu_i];

	return cpu_ns ? (double)(b->steps[cpu_i] - a->steps[cpu_i]) * NSEC_PER_SEC / cpu_ns : 0;
}

double soak_idle_rate(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	return sum_cpus(soak_idle_rate_one, a, b, n_cpus);
}

int soak_tare(struct soak *m, const struct soak_sample *a, const struct soak_sample *b,
	      struct soak_reference *ref)
{
	for (int i = 0; i < m->n_cpus; i++)
		if (b->cpu_ns[i] == a->cpu_ns[i]) {
			snprintf(m->err, sizeof(m->err),
				 "the tare: the soaker on CPU %d had no CPU time in %.0f ms, so "
				 "there is no idle rate to measure against: the CPU was busy "
				 "throughout (a longer -T may find it idle)",
				 m->cpus[i], (b->ns - a->ns) / 1e6);
			return -1;
		}
	ref->tared = 1;
	ref->rate = soak_rate(a, b, m->n_cpus);
	ref->idle_rate = soak_idle_rate(a, b, m->n_cpus);
	ref->kernel = soak_kernel_load(a, b, m->n_cpus);
	ref->cpu_share = soak_cpu_share(a, b, m->n_cpus);
	return 0;
}

void soak_figures(const struct soak_reference *ref, const struct soak_sample *a,
		  const struct soak_sample *b, int n_cpus, uint64_t bytes, struct soak_figures *f)
{
	double rate = soak_rate(a, b, n_cpus);

	f->kernel = soak_kernel_load(a, b, n_cpus);
	/* The calibration counted steps per second of the soakers' own CPU time: all of it. */
	f->time_lost = (ref->tared ? ref->cpu_share : 1.0) - soak_cpu_share(a, b, n_cpus);
	if (ref->tared) {
		f->load = (ref->rate - rate) / ref->idle_rate;
		f->kernel -= ref->kernel;
	} else {
		f->load = soak_load(rate, ref->calibration.per_sec);
	}
	f->slowdown = f->load - f->time_lost;
	f->ns = b->ns - a->ns;
	f->demand_us_per_kb = bytes ? f->load * n_cpus * (f->ns / 1000.0) / (bytes / 1024.0) : 0;
}

/*
 * The soakers' CPU time comes from their CPU clocks, exact to the ns, where
 * /proc/stat's figures are counted tick by tick; over a run of a second or
 * more the difference is a fraction of a percent.
 */
double soak_kernel_load(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	double all = (double)(b->stat_all_ns - a->stat_all_ns);
	double busy = (double)(b->stat_busy_ns - a->stat_busy_ns);

	if (a->stat_all_ns == 0 || b->stat_all_ns == 0 || all <= 0)
		return NAN;
	for (int i = 0; i < n_cpus; i++)
		busy -= (double)(b->cpu_ns[i] - a->cpu_ns[i]);
	return busy / all;
}

double soak_load(double measured_per_sec, double reference_per_sec)
{
	return 1.0 - measured_per_sec / reference_per_sec;
}

const char *soak_below_zero(double load, const struct soak_counts *c, char *buf, size_t len)
{
	if (load >= 0)
		return NULL;
	if (isnan(c->spread))
		snprintf(buf, len, "below 0: the meter's noise, or a calibration made on a busier "
				   "system");
	else if (-load <= c->spread)
		snprintf(buf, len, "below 0, within the calibration's spread of %.1f points",
			 c->spread * 100);
	else
		snprintf(buf, len, "below 0 by more than the calibration's spread of %.1f points: "
				   "recalibrate on an idle system", c->spread * 100);
	return buf;
}


/* Sleep until deadline_ns on CLOCK_MONOTONIC, returning early if *stop becomes set. */
static void sleep_until(uint64_t deadline_ns, volatile sig_atomic_t *stop)
{
	struct timespec ts = { .tv_sec = deadline_ns / NSEC_PER_SEC,
			       .tv_nsec = deadline_ns % NSEC_PER_SEC };

	while (!*stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int soak_every(struct soak *m, unsigned period_ms, volatile sig_atomic_t *stop,
	       int (*each)(void *arg, const struct soak_sample *a, const struct soak_sample *b),
	       void *arg)
{
	struct soak_sample a, b, t;
	uint64_t period_ns = period_ms * 1000000ULL, next, late_ns;
	int rc = 0;

	late_ns = period_ns * (SOAK_STALL_FACTOR - 1);
	if (late_ns < SOAK_STALL_MIN_NS)
		late_ns = SOAK_STALL_MIN_NS;
	if (soak_sample_init(m, &a) < 0 || soak_sample_init(m, &b) < 0) {
		soak_sample_free(&a);
		snprintf(m->err, sizeof(m->err), "allocating samples: %s", strerror(errno));
		return -1;
	}
	if (soak_take(m, &a) < 0)
		rc = -1;
	next = a.ns;
	while (rc == 0 && !*stop) {
		next += period_ns;
		sleep_until(next, stop);
		if (*stop)
			break;
		if (soak_take(m, &b) < 0) {
			rc = -1;
			break;
		}
		if (b.ns - a.ns > period_ns + late_ns) {
			fprintf(stderr,
				"%s: %.3f s passed in a %.3f s period (stopped or stalled): "
				"that period is not a sample\n",
				program_invocation_short_name, timing_secs(b.ns - a.ns),
				timing_secs(period_ns));
			next = b.ns;
		} else if (each(arg, &a, &b)) {
			break;
		}
		t = a, a = b, b = t;
	}
	soak_sample_free(&a);
	soak_sample_free(&b);
	return rc;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct calibration {
	int n_cpus;
	int periods;
	double rates[SOAK_CALIBRATION_PERIODS];
	double min_share;
};

static int calibration_period(void *arg, const struct soak_sample *a, const struct soak_sample *b)
{
	struct calibration *c = arg;
	double rate = soak_idle_rate(a, b, c->n_cpus);
	int kept = c->periods - SOAK_WARMUP_PERIODS;

	printf("calibrating: %.0f loops/sec\n", rate);
	if (kept >= 0) {
		c->rates[kept] = rate;
		for (int i = 0; i < c->n_cpus; i++)
			if (soak_cpu_share_one(a, b, i) < c->min_share)
				c->min_share = soak_cpu_share_one(a, b, i);
	}
	return ++c->periods == SOAK_WARMUP_PERIODS + SOAK_CALIBRATION_PERIODS;
}

/*
 * Each period's rate is per second of the soakers' own CPU time, so a task
 * that runs now and then during calibration does not lower it (it is still
 * warned about). Time the soakers are charged for but do not get, interrupts
 * and the hypervisor's share, stays in: it is the idle system's own.
 */
int soak_calibrate(struct soak *m, unsigned period_ms, volatile sig_atomic_t *stop)
{
	struct calibration c = { .n_cpus = m->n_cpus, .min_share = 1 };
	struct soak_counts counts;
	int rc;

	if (counts_check_writable(SOAK_COUNTS_FILE) < 0) {
		snprintf(m->err, sizeof(m->err), "writing %s: %s", SOAK_COUNTS_FILE, strerror(errno));
		return -1;
	}
	if (soak_start(m) < 0)
		return -1;
	rc = soak_every(m, period_ms, stop, calibration_period, &c);
	soak_close(m);
	if (rc < 0)
		return -1;
	if (*stop)
		return 1;
	qsort(c.rates, SOAK_CALIBRATION_PERIODS, sizeof(c.rates[0]), compare_doubles);
	counts.per_sec = c.rates[SOAK_CALIBRATION_PERIODS / 2];
	counts.spread = (c.rates[SOAK_CALIBRATION_PERIODS - 1] - c.rates[0]) / counts.per_sec;
	if (counts.spread > SOAK_SPREAD_WARN)
		fprintf(stderr, "%s: warning: the calibration samples spread by %.1f%% (more than "
				"%.0f%%): is the system idle?\n",
			program_invocation_short_name, counts.spread * 100, SOAK_SPREAD_WARN * 100);
	if (c.min_share < SOAK_IDLE_SHARE_WARN)
		fprintf(stderr, "%s: warning: a soaker had only %.1f%% of its CPU in a period: "
				"other tasks were running\n",
			program_invocation_short_name, c.min_share * 100);
	if (counts_write(SOAK_COUNTS_FILE, &counts, m->n_cpus) < 0) {
		snprintf(m->err, sizeof(m->err), "writing %s: %s", SOAK_COUNTS_FILE,
			 strerror(errno));
		return -1;
	}
	printf("calibrated OK.  %.0f loops/sec\n", counts.per_sec);
	return 0;
}
