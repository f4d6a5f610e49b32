/*
 * A sysctl changed and put back, under a /proc/sys and a record of the
 * test's own: set and restored with the record gone; what a run that ended
 * without putting it back left, put back by the next and said; a live run's
 * refused; another boot's record dropped; a malformed record, a name that is
 * no sysctl's and a sysctl that does not exist refused, each with its line.
 * A planted record changes nothing: one with "..", a link out of the
 * sysctls, a file outside them, a control character in its value, one not
 * the user's own file of mode 0600 and one link, one in a directory others
 * can write.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/sysctl.h"
#include "check.h"

static char dir[] = "/tmp/test_sysctl.XXXXXX";
static char proc[128], state[128], file[160];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A record as a run writes it: the user's own, mode 0600. */
static void put_record(const char *text)
{
	int fd = open(state, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0 && fchmod(fd, 0600) == 0);
	if (fd >= 0) {
		CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
		close(fd);
	}
}

static const char *got(const char *path)
{
	static char buf[512];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[f ? n : 0] = '\0';
	return f ? buf : "(none)";
}

static void boot(char *buf, size_t len)
{
	snprintf(buf, len, "%s", got("/proc/sys/kernel/random/boot_id"));
	buf[strcspn(buf, "\n")] = '\0';
}

/* A pid that has ended and been reaped. */
static pid_t gone_pid(void)
{
	pid_t kid = fork();

	if (kid == 0)
		_exit(0);
	waitpid(kid, NULL, 0);
	return kid;
}

static void fresh(void)
{
	unlink(state);
	put(file, "1\n");
}

/* Opened: the record written with the old value; set, restored, the record gone. */
static void set_and_put_back(void)
{
	struct sysctl_knob k;
	char err[512] = "", want[512], b[64];

	fresh();
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK_STR(k.path, file);
	boot(b, sizeof(b));
	snprintf(want, sizeof(want), "%d %s\n%s\n1\n", (int)getpid(), b, file);
	CHECK_STR(got(state), want);
	CHECK(sysctl_knob_set(&k, "0") == 0);
	CHECK_STR(got(file), "0");
	sysctl_knob_restore(&k);
	CHECK_STR(got(file), "1\n");
	CHECK(access(state, F_OK) < 0);
	sysctl_knob_restore(&k);
	CHECK_STR(got(file), "1\n");
}

/* A record whose run has ended: its value put back before the old one is read. */
static void what_an_ended_run_left_is_put_back_first(void)
{
	struct sysctl_knob k;
	char err[512] = "", rec[512], b[64];
	pid_t pid = gone_pid();

	fresh();
	put(file, "0\n");
	boot(b, sizeof(b));
	snprintf(rec, sizeof(rec), "%d %s\n%s\n1\n", (int)pid, b, file);
	put_record(rec);
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) == 0);
	CHECK_STR(got(file), "1\n");
	CHECK_STR(k.original, "1\n");
	sysctl_knob_restore(&k);
	CHECK(access(state, F_OK) < 0);
}

/* A live run's record is refused, naming it; another boot's is dropped. */
static void a_live_runs_record_is_refused_and_another_boots_dropped(void)
{
	struct sysctl_knob k;
	char err[512] = "", rec[512], want[512], b[64];

	fresh();
	boot(b, sizeof(b));
	snprintf(rec, sizeof(rec), "%d %s\n%s\n1\n", (int)getppid(), b, file);
	put_record(rec);
	put(file, "0\n");
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) < 0);
	snprintf(want, sizeof(want), "pid %d is changing %s now (%s): one such run at a time",
		 (int)getppid(), file, state);
	CHECK_STR(err, want);
	CHECK_STR(got(file), "0\n");
	CHECK_STR(got(state), rec);
	snprintf(rec, sizeof(rec), "%d another-boot\n%s\n1\n", (int)getppid(), file);
	put_record(rec);
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) == 0);
	CHECK_STR(k.original, "0\n");
	sysctl_knob_restore(&k);
	CHECK_STR(got(file), "0\n");
}

/* Refused with a line: a malformed record, a name that is none, a sysctl that is not there. */
static void what_is_wrong_is_said(void)
{
	struct sysctl_knob k;
	char err[512] = "", want[512];

	fresh();
	put_record("garbage\n");
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) < 0);
	snprintf(want, sizeof(want), "%s: not a record of a sysctl changed (remove it once its "
		 "sysctl is as it should be)", state);
	CHECK_STR(err, want);
	fresh();
	CHECK(sysctl_knob_open_in(&k, proc, state, "net/../../etc", err, sizeof(err)) < 0);
	CHECK_STR(err, "'net/../../etc': not a sysctl's name (as net.ipv4.tcp_autocorking)");
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.y", err, sizeof(err)) < 0);
	snprintf(want, sizeof(want), "net.ipv4.y: no such sysctl (%s/net/ipv4/y: No such file or "
		 "directory)", proc);
	CHECK_STR(err, want);
	CHECK(access(state, F_OK) < 0);
}

/* A record of a run that has ended, naming path and value: refused with want, nothing written. */
static void planted(const char *path, const char *value, const char *want)
{
	struct sysctl_knob k;
	char err[512] = "", rec[512], b[64];

	boot(b, sizeof(b));
	snprintf(rec, sizeof(rec), "%d %s\n%s\n%s", (int)gone_pid(), b, path, value);
	put_record(rec);
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) < 0);
	CHECK_STR(err, want);
	CHECK_STR(got(state), rec);
}

/* A planted record that names a file outside the sysctls, or a value with control characters. */
static void a_record_naming_anything_but_a_sysctl_writes_nothing(void)
{
	char path[256], want[512], victim[160], link[200];

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(want, sizeof(want), "%s: not a record of a sysctl changed (remove it once its "
		 "sysctl is as it should be)", state);
	fresh();
	put(victim, "mine\n");
	snprintf(path, sizeof(path), "%s/../victim", proc);
	planted(path, "owned\n", want);
	snprintf(path, sizeof(path), "%s/net/../../victim", proc);
	planted(path, "owned\n", want);
	planted(victim, "owned\n", want);
	snprintf(link, sizeof(link), "%s/net/ipv4/link", proc);
	CHECK(symlink(victim, link) == 0);
	planted(link, "owned\n", want);
	unlink(link);
	snprintf(path, sizeof(path), "%s/net/ipv4", proc);
	planted(path, "owned\n", want);
	planted(file, "0\nowned\n", want);
	planted(file, "0\r\n", want);
	CHECK_STR(got(victim), "mine\n");
	CHECK_STR(got(file), "1\n");
	unlink(victim);
}

/* A record that is not the user's own file of mode 0600 and one link, or sits where others write. */
static void a_record_the_user_did_not_write_is_left_alone(void)
{
	struct sysctl_knob k;
	char err[512] = "", rec[512], want[512], b[64], other[160];

	boot(b, sizeof(b));
	snprintf(rec, sizeof(rec), "%d %s\n%s\n0\n", (int)gone_pid(), b, file);
	snprintf(want, sizeof(want), "%s: not a record this user wrote (a regular file of uid %d, "
		 "mode 0600, one link): left as it is, and nothing changed", state, (int)geteuid());
	fresh();
	put_record(rec);
	CHECK(chmod(state, 0644) == 0);
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) < 0);
	CHECK_STR(err, want);
	CHECK(chmod(state, 0600) == 0);
	snprintf(other, sizeof(other), "%s/other", dir);
	CHECK(link(state, other) == 0);
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) < 0);
	CHECK_STR(err, want);
	unlink(other);
	if (geteuid() == 0) {
		CHECK(chown(state, 65534, 65534) == 0);
		CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) < 0);
		CHECK_STR(err, want);
		CHECK(chown(state, 0, 0) == 0);
	}
	unlink(state);
	CHECK(symlink(other, state) == 0);
	put(other, rec);
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) < 0);
	snprintf(want, sizeof(want), "%s: Too many levels of symbolic links", state);
	CHECK_STR(err, want);
	unlink(state);
	unlink(other);
	CHECK_STR(got(file), "1\n");
	/* Where others can write, no record is trusted or made. */
	CHECK(chmod(dir, 0777) == 0);
	CHECK(sysctl_knob_open_in(&k, proc, state, "net.ipv4.x", err, sizeof(err)) < 0);
	snprintf(want, sizeof(want), "%s: others can write there: the record of a sysctl changed is "
		 "kept only where root alone can write", dir);
	CHECK_STR(err, want);
	CHECK(access(state, F_OK) < 0);
	CHECK(chmod(dir, 0700) == 0);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(proc, sizeof(proc), "%s/sys", dir);
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(file, sizeof(file), "%s/net/ipv4/x", proc);
	mkdir(proc, 0700);
	{
		char d[160];

		snprintf(d, sizeof(d), "%s/net", proc);
		mkdir(d, 0700);
		snprintf(d, sizeof(d), "%s/net/ipv4", proc);
		mkdir(d, 0700);
	}
	RUN(set_and_put_back);
	RUN(what_an_ended_run_left_is_put_back_first);
	RUN(a_live_runs_record_is_refused_and_another_boots_dropped);
	RUN(what_is_wrong_is_said);
	RUN(a_record_naming_anything_but_a_sysctl_writes_nothing);
	RUN(a_record_the_user_did_not_write_is_left_alone);
	unlink(state);
	unlink(file);
	snprintf(file, sizeof(file), "%s/net/ipv4", proc);
	rmdir(file);
	snprintf(file, sizeof(file), "%s/net", proc);
	rmdir(file);
	rmdir(proc);
	rmdir(dir);
	return CHECK_EXIT();
}
