/*
 * The host's lock, at a path of the test's own: taken once, refused to
 * another process with its name and user, waited for (bounded, saying who
 * holds it), held for what runs inside a hold, or was handed its token,
 * and for nothing else, and never taken through a symbolic link or on a FIFO.
 */
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hostlock.h"
#include "check.h"

static char dir[] = "/tmp/test_hostlock.XXXXXX";

/* "for CPUs 0-N", the host's CPUs as a holder's line names them. */
static const char *host_cpus(void)
{
	static char text[64];
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n == 1)
		snprintf(text, sizeof(text), "for CPU 0");
	else
		snprintf(text, sizeof(text), "for CPUs 0-%ld", n - 1);
	return text;
}

static const char *me(void)
{
	struct passwd *pw = getpwuid(getuid());

	return pw ? pw->pw_name : "?";
}

/* Taken, the file is everyone's to open; a second process is refused, naming the holder. */
static void a_second_process_is_refused_and_told_who_holds_it(void)
{
	char path[64], got[512] = "", want[512];
	int fd = -1, fds[2], st = 0;
	struct stat sb;
	pid_t kid;

	snprintf(path, sizeof(path), "%s/lock", dir);
	CHECK(hostlock_take(path, NULL, 0, &fd, 0, NULL, got, sizeof(got)) == 0 && fd >= 0);
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0666);
	CHECK(pipe(fds) == 0);
	kid = fork();
	if (kid == 0) {
		char err[512] = "";
		int kfd = -1, rc = hostlock_take(path, NULL, 0, &kfd, 0, NULL, err, sizeof(err));

		if (write(fds[1], err, strlen(err)) < 0)
			_exit(3);
		_exit(rc == -1 && kfd == -1 ? 0 : 1);
	}
	close(fds[1]);
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	close(fds[0]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(want, sizeof(want),
		 "another meter is running on this host: pid %d (test_hostlock, user %s) holds %s %s; "
		 "two meters count each other's soakers, and both would be wrong",
		 (int)getpid(), me(), path, host_cpus());
	CHECK_STR(got, want);
	close(fd);
	unlink(path);
}

/*
 * In a child: hostlock_wait_for as a meter with wait, saying it still waits
 * every say_ms, its lines on a file; what it said and its err, "SAID|ERR", on out.
 */
static pid_t take_in_child(const char *path, long wait, long say_ms, int out)
{
	pid_t kid;

	fflush(NULL);
	kid = fork();
	if (kid == 0) {
		char err[512] = "";
		FILE *say = tmpfile();
		char said[2048] = "";
		int kfd = -1, rc = hostlock_wait_for(path, 1, NULL, 0, &kfd, wait, say, say_ms, err, sizeof(err));

		if (say) {
			size_t n;

			rewind(say);
			n = fread(said, 1, sizeof(said) - 1, say);
			said[n] = '\0';
		}
		if (dprintf(out, "%s|%s", said, err) < 0)
			_exit(3);
		_exit(rc == 0 ? 0 : 1);
	}
	return kid;
}

/*
 * What a second meter said while the first held the lock for hold_ms, saying
 * it still waits every say_ms; the child's exit status checked.
 */
static void wait_behind_the_first(const char *path, long hold_ms, long say_ms, char *got, size_t len)
{
	int fd = -1, fds[2], st = 0;
	ssize_t n;
	pid_t kid;

	CHECK(hostlock_take(path, NULL, 0, &fd, 0, NULL, got, len) == 0);
	CHECK(pipe(fds) == 0);
	kid = take_in_child(path, 5, say_ms, fds[1]);
	close(fds[1]);
	usleep(hold_ms * 1000);
	CHECK(waitpid(kid, &st, WNOHANG) == 0);
	close(fd);
	n = read(fds[0], got, len - 1);
	CHECK(n > 0);
	got[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(path);
}

/*
 * A second meter waits while the first holds the lock, says once who holds
 * it, and once it has it, how long it waited.
 */
static void a_second_meter_waits_for_the_first_and_says_who(void)
{
	char path[64], got[2048] = "", want[512], *line2;
	double waited = 0;

	snprintf(path, sizeof(path), "%s/lock", dir);
	wait_behind_the_first(path, 300, HOSTLOCK_SAY_EVERY_MS, got, sizeof(got));
	snprintf(want, sizeof(want), "test_hostlock: waiting for the host's meter: pid %d (test_hostlock, "
		 "user %s) holds %s %s (at most 5 s in all; ZC_METER_WAIT sets it, 0 to not wait)\n",
		 (int)getpid(), me(), path, host_cpus());
	CHECK(strncmp(got, want, strlen(want)) == 0);
	line2 = got + strlen(want);
	CHECK(sscanf(line2, "test_hostlock: took the host's meter after %lf s of waiting\n|", &waited) == 1);
	CHECK(waited >= 0.2 && waited < 3);
	CHECK_STR(strchr(line2, '\n'), "\n|");
}

/* A long wait says, every say_ms, that it is still waiting, for how long so far, and for whom. */
static void a_long_wait_says_it_is_still_waiting(void)
{
	char path[64], got[2048] = "", want[512], *p;
	int still = 0;

	snprintf(path, sizeof(path), "%s/lock", dir);
	wait_behind_the_first(path, 1100, 300, got, sizeof(got));
	snprintf(want, sizeof(want), "s of at most 5; pid %d (test_hostlock, user %s) holds %s %s\n",
		 (int)getpid(), me(), path, host_cpus());
	for (p = strchr(got, '\n') + 1; strncmp(p, "test_hostlock: still waiting", 28) == 0;
	     p = strchr(p, '\n') + 1) {
		int secs = -1, at = 0;

		CHECK(sscanf(p, "test_hostlock: still waiting for the host's meter: %d %n", &secs, &at) == 1);
		CHECK(secs >= 0 && secs <= 2);
		CHECK(strncmp(p + at, want, strlen(want)) == 0);
		still++;
	}
	/* Said at 0.3, 0.6 and 0.9 s, and at 1.1 s if a poll ran late. */
	CHECK(still >= 2 && still <= 4);
	CHECK(strncmp(p, "test_hostlock: took the host's meter after 1.", 45) == 0);
}

/* A wait that runs out says how long it waited. */
static void a_wait_that_runs_out_says_so(void)
{
	char path[64], got[1024] = "", want[512];
	int fd = -1, fds[2], st = 0;
	pid_t kid;

	snprintf(path, sizeof(path), "%s/lock", dir);
	CHECK(hostlock_take(path, NULL, 0, &fd, 0, NULL, got, sizeof(got)) == 0);
	CHECK(pipe(fds) == 0);
	kid = take_in_child(path, 1, HOSTLOCK_SAY_EVERY_MS, fds[1]);
	close(fds[1]);
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	close(fds[0]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 1);
	snprintf(want, sizeof(want), "another meter is running on this host: pid %d (test_hostlock, "
		 "user %s) holds %s %s; two meters count each other's soakers, and both would be wrong "
		 "(waited 1 s for it: ZC_METER_WAIT)", (int)getpid(), me(), path, host_cpus());
	CHECK(strstr(got, want) != NULL);
	close(fd);
	unlink(path);
}

/*
 * What an outside process (reparented away from this one), as user uid
 * where uid is not -1, says as it takes the meter: "taken", or why not.
 */
static void take_outside_as(const char *path, const char *inside_word, uid_t uid, char *got,
			    size_t len)
{
	int fds[2], st;
	pid_t kid;

	CHECK(pipe(fds) == 0);
	fflush(NULL);
	kid = fork();
	if (kid == 0) {
		pid_t middle = getpid(), g = fork();

		if (g == 0) {
			char err[512] = "";
			int kfd = -1;

			for (int i = 0; i < 200 && getppid() == middle; i++)
				usleep(10000);
			if (uid != (uid_t)-1 && (setgid(uid) < 0 || setuid(uid) < 0))
				_exit(3);
			if (inside_word)
				setenv(HOSTLOCK_INSIDE_ENV, inside_word, 1);
			else
				unsetenv(HOSTLOCK_INSIDE_ENV);
			if (hostlock_take(path, NULL, 0, &kfd, 0, NULL, err, sizeof(err)) == 0)
				strcpy(err, "taken");
			if (write(fds[1], err, strlen(err)) < 0)
				_exit(3);
			_exit(0);
		}
		_exit(0);
	}
	CHECK(waitpid(kid, &st, 0) == kid);
	close(fds[1]);
	memset(got, 0, len);
	CHECK(read(fds[0], got, len - 1) > 0);
	close(fds[0]);
}

static void take_outside(const char *path, const char *inside_word, char *got, size_t len)
{
	take_outside_as(path, inside_word, (uid_t)-1, got, len);
}

/*
 * A hold: a meter started inside it (here a child of the holder) takes its
 * turn, a second one inside waits for the first; a process outside (one
 * reparented away from the holder) is refused, naming the holder.
 */
static void a_hold_lets_in_what_runs_inside_it_and_no_other(void)
{
	char path[64], err[512], got[1024] = "", want[512];
	int fd = -1, kfd = -1, fds[2], st = 0;
	pid_t kid, first;

	snprintf(path, sizeof(path), "%s/lock", dir);
	CHECK(hostlock_hold(path, &fd, 0, NULL, err, sizeof(err)) == 0);
	CHECK(pipe(fds) == 0);
	fflush(NULL);
	first = fork();
	if (first == 0) {
		/* Inside: takes the meter, and holds it until the parent is done. */
		int rc = hostlock_take(path, NULL, 0, &kfd, 0, NULL, err, sizeof(err));

		if (write(fds[1], rc == 0 ? "y" : "n", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	CHECK(read(fds[0], got, 1) == 1 && got[0] == 'y');
	/* A second meter inside is refused, naming the first. */
	kid = take_in_child(path, 0, HOSTLOCK_SAY_EVERY_MS, fds[1]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 1);
	memset(got, 0, sizeof(got));
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	snprintf(want, sizeof(want), "|another meter is running on this host: pid %d (test_hostlock,", (int)first);
	CHECK(strncmp(got, want, strlen(want)) == 0);
	kill(first, SIGKILL);
	waitpid(first, &st, 0);
	close(fds[0]);
	close(fds[1]);
	/* Outside: a grandchild whose parent has gone, reparented away from the holder. */
	take_outside(path, NULL, got, sizeof(got));
	snprintf(want, sizeof(want), "another meter is running on this host: pid %d (test_hostlock,",
		 (int)getpid());
	CHECK(strncmp(got, want, strlen(want)) == 0);
	close(fd);
	unlink(path);
}

/*
 * A process that is not the holder's, started another way (ssh to this
 * host), is inside the hold when it was handed the holder's token, and only
 * then: a word that names this boot and the holder's pid (what a variable
 * could claim before), another token, or none, leaves it outside; so does
 * the right token in another user's process, which cannot read where the
 * holder keeps it. A hold inside another hands down the outer one's token.
 */
static void only_the_holders_token_lets_in_a_process_started_another_way(void)
{
	static const char REFUSED[] = "another meter is running on this host: pid ";
	char path[64], err[512], got[1024], word[128], token[64] = "x", inner[64] = "x", boot[64] = "";
	int fd = -1, fds[2], st;
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	pid_t kid;

	CHECK(f && fgets(boot, sizeof(boot), f));
	if (f)
		fclose(f);
	boot[strcspn(boot, "\n")] = 0;
	snprintf(path, sizeof(path), "%s/lock", dir);
	unsetenv(HOSTLOCK_INSIDE_ENV);
	CHECK(hostlock_hold(path, &fd, 0, NULL, err, sizeof(err)) == 0);
	CHECK(hostlock_hand_token(fd, token, sizeof(token), err, sizeof(err)) == 0);
	CHECK(strlen(token) == 32 && strspn(token, "0123456789abcdef") == 32);
	take_outside(path, token, got, sizeof(got));
	CHECK_STR(got, "taken");
	snprintf(word, sizeof(word), "%s:%d", boot, (int)getpid());
	take_outside(path, word, got, sizeof(got));
	CHECK(strncmp(got, REFUSED, strlen(REFUSED)) == 0);
	snprintf(word, sizeof(word), "%s", token);
	word[0] = word[0] == '0' ? '1' : '0';
	take_outside(path, word, got, sizeof(got));
	CHECK(strncmp(got, REFUSED, strlen(REFUSED)) == 0);
	take_outside(path, NULL, got, sizeof(got));
	CHECK(strncmp(got, REFUSED, strlen(REFUSED)) == 0);
	if (geteuid() == 0) {
		CHECK(chmod(dir, 0755) == 0);
		take_outside_as(path, token, 65534, got, sizeof(got));
		CHECK(strncmp(got, REFUSED, strlen(REFUSED)) == 0);
		CHECK(chmod(dir, 0700) == 0);
	}
	/* A hold inside this one (a child's): it hands down the token it was given. */
	CHECK(pipe(fds) == 0);
	kid = fork();
	if (kid == 0) {
		char e[512];
		int ifd = -1;

		setenv(HOSTLOCK_INSIDE_ENV, token, 1);
		if (hostlock_hold(path, &ifd, 0, NULL, e, sizeof(e)) < 0 ||
		    hostlock_hand_token(ifd, inner, sizeof(inner), e, sizeof(e)) < 0)
			_exit(1);
		_exit(write(fds[1], inner, strlen(inner) + 1) > 0 ? 0 : 1);
	}
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(read(fds[0], inner, sizeof(inner)) > 0);
	CHECK_STR(inner, token);
	close(fds[0]);
	close(fds[1]);
	close(fd);
	unlink(path);
}

/* ZC_METER_WAIT: unset, the default; a number of seconds; anything else an error naming it. */
static void the_wait_comes_from_zc_meter_wait(void)
{
	char err[512] = "";
	const char *old = getenv("ZC_METER_WAIT");
	char *saved = old ? strdup(old) : NULL;

	unsetenv("ZC_METER_WAIT");
	CHECK_EQ_U64(hostlock_wait_secs(err, sizeof(err)), HOSTLOCK_DEFAULT_WAIT_SECS);
	setenv("ZC_METER_WAIT", "0", 1);
	CHECK_EQ_U64(hostlock_wait_secs(err, sizeof(err)), 0);
	setenv("ZC_METER_WAIT", "90", 1);
	CHECK_EQ_U64(hostlock_wait_secs(err, sizeof(err)), 90);
	setenv("ZC_METER_WAIT", "5s", 1);
	CHECK(hostlock_wait_secs(err, sizeof(err)) == -1);
	CHECK_STR(err, "ZC_METER_WAIT '5s': not a number of seconds from 0 to 86400");
	setenv("ZC_METER_WAIT", "86401", 1);
	CHECK(hostlock_wait_secs(err, sizeof(err)) == -1);
	setenv("ZC_METER_WAIT", "", 1);
	CHECK(hostlock_wait_secs(err, sizeof(err)) == -1);
	if (saved)
		setenv("ZC_METER_WAIT", saved, 1);
	else
		unsetenv("ZC_METER_WAIT");
	free(saved);
}

/* What another user could plant: refused in one line, the link never followed. */
static void a_link_or_a_fifo_is_refused(void)
{
	char path[64], target[64], err[512], want[512];
	int fd = -1;
	struct stat sb;

	snprintf(path, sizeof(path), "%s/lock", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	CHECK(symlink(target, path) == 0);
	CHECK(hostlock_take(path, NULL, 0, &fd, 0, NULL, err, sizeof(err)) == -1 && fd == -1);
	snprintf(want, sizeof(want), "%s (the lock that keeps two meters apart) is a symbolic "
		 "link; it is user %s's: they or root can remove it", path, me());
	CHECK_STR(err, want);
	CHECK(lstat(target, &sb) == -1);
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(hostlock_take(path, NULL, 0, &fd, 0, NULL, err, sizeof(err)) == -1 && fd == -1);
	snprintf(want, sizeof(want), "%s (the lock that keeps two meters apart) is not a regular "
		 "file; it is user %s's: they or root can remove it", path, me());
	CHECK_STR(err, want);
	unlink(path);
}

/* In a child: a meter of cpus[0..n) at once (no wait); "taken", or why not, on fd. */
static pid_t take_cpus_in_child(const char *path, const int *cpus, int n, int fd)
{
	pid_t kid;

	fflush(NULL);
	kid = fork();
	if (kid == 0) {
		char err[512] = "";
		int kfd = -1, rc = hostlock_take(path, cpus, n, &kfd, 0, NULL, err, sizeof(err));

		if (rc == 0)
			strcpy(err, "taken");
		if (write(fd, err, strlen(err)) < 0)
			_exit(3);
		_exit(rc == 0 ? 0 : 1);
	}
	return kid;
}

/*
 * A lock a CPU: a meter of CPU 1 runs beside one of CPU 0; one of CPUs 0
 * and 1 is refused, named the holder and its CPUs; a meter of every CPU
 * too, and a holder, which would keep the CPU's other meters out.
 */
static void meters_of_other_cpus_run_at_once_and_of_the_same_cpu_wait(void)
{
	static const int zero[] = { 0 }, one[] = { 1 }, both[] = { 0, 1 };
	char path[64], err[512], got[1024], want[512];
	int fd = -1, fds[2], st;
	pid_t kid;

	snprintf(path, sizeof(path), "%s/lock", dir);
	CHECK(hostlock_take(path, zero, 1, &fd, 0, NULL, err, sizeof(err)) == 0);
	CHECK(pipe(fds) == 0);
	kid = take_cpus_in_child(path, one, 1, fds[1]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	memset(got, 0, sizeof(got));
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	CHECK_STR(got, "taken");
	snprintf(want, sizeof(want), "another meter is running on this host: pid %d (test_hostlock, "
		 "user %s) holds %s for CPU 0; two meters count each other's soakers, and both would "
		 "be wrong", (int)getpid(), me(), path);
	kid = take_cpus_in_child(path, both, 2, fds[1]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 1);
	memset(got, 0, sizeof(got));
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	CHECK_STR(got, want);
	kid = take_cpus_in_child(path, NULL, 0, fds[1]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 1);
	memset(got, 0, sizeof(got));
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	CHECK_STR(got, want);
	fflush(NULL);
	kid = fork();
	if (kid == 0) {
		char e[512] = "";
		int hfd = -1, rc = hostlock_hold(path, &hfd, 0, NULL, e, sizeof(e));

		_exit(write(fds[1], e, strlen(e)) > 0 && rc < 0 ? 0 : 1);
	}
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	memset(got, 0, sizeof(got));
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	CHECK_STR(got, want);
	/* Once the first is gone, the second of CPUs 0 and 1 runs. */
	close(fd);
	kid = take_cpus_in_child(path, both, 2, fds[1]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[0]);
	close(fds[1]);
	unlink(path);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(a_second_process_is_refused_and_told_who_holds_it);
	RUN(a_second_meter_waits_for_the_first_and_says_who);
	RUN(a_long_wait_says_it_is_still_waiting);
	RUN(a_wait_that_runs_out_says_so);
	RUN(a_hold_lets_in_what_runs_inside_it_and_no_other);
	RUN(meters_of_other_cpus_run_at_once_and_of_the_same_cpu_wait);
	RUN(only_the_holders_token_lets_in_a_process_started_another_way);
	RUN(the_wait_comes_from_zc_meter_wait);
	RUN(a_link_or_a_fifo_is_refused);
	rmdir(dir);
	return CHECK_EXIT();
}
