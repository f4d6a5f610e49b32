/* The soakers: started under the host's lock, counted, reaped, and their failures said. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/cpu.h"
#include "../lib/sampling.h"
#include "../lib/timing.h"
#include "check.h"

static void asking_for_more_cpus_than_allowed_is_refused(void)
{
	struct soak m;
	int n = cpu_allowed((int[CPU_MAX_INDEX + 1]){ 0 }, CPU_MAX_INDEX + 1);
	char want[96];

	CHECK(soak_open(&m, n + 1, NULL, 0) == SOAK_TOO_MANY_CPUS);
	snprintf(want, sizeof(want), "only %d CPU%s available to this process", n,
		 n == 1 ? " is" : "s are");
	CHECK_STR(m.err, want);
	soak_close(&m);
}

/*
 * The meter on one CPU, started; or, where the host was too busy for a
 * soaker to start (every CPU taken by tasks above idle priority) or
 * another meter held it, the test skipped, saying so: a correct program on
 * such a host is no failure. Anything else fails.
 */
#define START_OR_SKIP(m)                                                                     \
	do {                                                                                 \
		static char why_[sizeof((m)->err) + 64];                                      \
		if (soak_open((m), 1, NULL, 0) == 0 && soak_start(m) == 0)                          \
			break;                                                               \
		snprintf(why_, sizeof(why_), "the host is too busy to judge: %s", (m)->err); \
		if (strstr((m)->err, "did not start within") ||                              \
		    strstr((m)->err, "another meter is running"))                            \
			SKIP(why_);                                                          \
		printf("#   the meter did not start: %s\n", (m)->err);                   \
		check_failed_now = 1;                                                        \
		return;                                                                      \
	} while (0)

static void soakers_count_and_are_reaped(void)
{
	struct soak m;
	struct soak_sample a, b;
	int tries = 0;

	START_OR_SKIP(&m);
	CHECK(m.n_cpus == 1);
	CHECK(soak_sample_init(&m, &a) == 0 && soak_sample_init(&m, &b) == 0);
	CHECK(soak_take(&m, &a) == 0);
	/* A soaker at idle priority counts once it has its CPU: on a busy host, later. */
	do {
		usleep(50000);
		CHECK(soak_take(&m, &b) == 0);
	} while (soak_cpu_share_one(&a, &b, 0) == 0 && ++tries < 40);
	if (soak_cpu_share_one(&a, &b, 0) == 0) {
		soak_sample_free(&a);
		soak_sample_free(&b);
		soak_close(&m);
		SKIP("the host is too busy to judge: the soaker had no CPU time in 2 s");
	}
	CHECK(soak_rate(&a, &b, 1) > 0);
	CHECK(soak_cpu_share_one(&a, &b, 0) > 0);
	soak_sample_free(&a);
	soak_sample_free(&b);
	soak_close(&m);
	soak_close(&m);
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

/* A process's state letter (R, S, T, Z...), from /proc; 0 if it is gone. */
static char process_state(pid_t pid)
{
	char path[64], buf[512], *p, state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		state = p[2];
	fclose(f);
	return state;
}

/* sig kills or stops the soaker; the next sample says so instead of counting a load. */
static void check_soaker_failure(int sig, const char *want_fmt)
{
	struct soak m;
	struct soak_sample a;
	char want[256];
	int rc = 0;

	START_OR_SKIP(&m);
	CHECK(soak_sample_init(&m, &a) == 0);
	CHECK(soak_take(&m, &a) == 0);
	kill(m.pids[0], sig);
	/*
	 * A soaker stops, or dies, once it runs to take the signal: at idle
	 * priority on a busy host, later.
	 */
	for (int i = 0; i < 40 && (rc = soak_take(&m, &a)) == 0; i++)
		usleep(50000);
	/* Still runnable, the signal not taken yet: the host was too busy; anything else is a failure. */
	if (rc == 0 && process_state(m.pids[0]) == 'R') {
		soak_sample_free(&a);
		soak_close(&m);
		SKIP("the host is too busy to judge: the soaker had no CPU to take the signal in 2 s");
	}
	CHECK(rc == -1);
	snprintf(want, sizeof(want), want_fmt, m.cpus[0]);
	CHECK_STR(m.err, want);
	soak_sample_free(&a);
	soak_close(&m);
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

static void a_dead_soaker_is_reported(void)
{
	check_soaker_failure(SIGKILL, "the soaker on CPU %d died (Killed)");
}

static void a_stopped_soaker_is_reported(void)
{
	check_soaker_failure(SIGSTOP, "the soaker on CPU %d was stopped (Stopped (signal)): "
				      "its count is no measurement");
}

/*
 * A second meter on the host is refused while the first runs, naming it, and
 * may start once the first has closed. The second is a child: the lock is
 * per process.
 */
static void a_second_meter_is_refused_while_one_runs(void)
{
	struct soak m;
	int fds[2], st = 0;
	char got[256] = "", want[256];
	pid_t kid;

	START_OR_SKIP(&m);
	CHECK(pipe(fds) == 0);
	kid = fork();
	if (kid == 0) {
		struct soak second;
		int rc;

		/* Refused at once, not waited for (ZC_METER_WAIT). */
		setenv("ZC_METER_WAIT", "0", 1);
		rc = soak_open(&second, 1, NULL, 0) == 0 ? soak_start(&second) : 0;

		if (write(fds[1], second.err, strlen(second.err)) < 0)
			_exit(3);
		_exit(rc == -1 ? 0 : 1);
	}
	close(fds[1]);
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	close(fds[0]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(want, sizeof(want),
		 "another meter is running on this host: pid %d (test_soak, user %s) holds %s for CPU 0; two meters "
		 "count each other's soakers, and both would be wrong", (int)getpid(),
		 getpwuid(getuid()) ? getpwuid(getuid())->pw_name : "?", SOAK_LOCK_FILE);
	CHECK_STR(got, want);
	soak_close(&m);
	START_OR_SKIP(&m);
	soak_close(&m);
}

/* A meter that never started (or failed to) takes no sample: it says so, and does not crash. */
static void a_meter_not_running_takes_no_sample(void)
{
	struct soak m = { .lock_fd = -1 };
	struct soak_sample a = { 0 };
	uint64_t steps[1], cpu_ns[1];

	a.steps = steps;
	a.cpu_ns = cpu_ns;
	CHECK(soak_take(&m, &a) == -1);
	CHECK_STR(m.err, "the meter is not running");
}

int main(void)
{
	RUN(asking_for_more_cpus_than_allowed_is_refused);
	RUN(soakers_count_and_are_reaped);
	RUN(a_second_meter_is_refused_while_one_runs);
	RUN(a_dead_soaker_is_reported);
	RUN(a_stopped_soaker_is_reported);
	RUN(a_meter_not_running_takes_no_sample);
	return CHECK_EXIT();
}
