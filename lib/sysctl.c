#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysctl.h"
#include "system.h"

/* The whole of a small file, at most len - 1 bytes, NUL-ended: its length, or -1. */
static ssize_t read_fd(int fd, char *buf, size_t len)
{
	ssize_t n, got = 0;

	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	return got;
}

static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read_fd(fd, buf, len);
	close(fd);
	return got;
}

/* Write it whole to an existing regular file; async-signal-safe. */
static int write_whole(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int regular;
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (regular && len)
		n = write(fd, buf, len);
	close(fd);
	return regular && n == (ssize_t)len ? 0 : -1;
}

/* pid is running (a zombie has ended, whoever has yet to reap it). */
static int alive(long pid)
{
	char path[64], stat[512], *close_paren;

	if (kill(pid, 0) < 0 && errno != EPERM)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_small(path, stat, sizeof(stat)) < 0)
		return 0;
	close_paren = strrchr(stat, ')');
	return !close_paren || close_paren[1] != ' ' || close_paren[2] != 'Z';
}

static void boot_id(char *buf, size_t len)
{
	if (system_sysctl("kernel.random.boot_id", buf, len) < 0)
		buf[0] = '\0';
}

/*
 * path is a sysctl's file under proc_sys, and nothing else: the part after
 * "proc_sys/" is words of [a-z0-9_-] joined by single slashes (a name's dots
 * made slashes: no "." or ".." can be in it), a regular file, and the path
 * the kernel resolves it to is under proc_sys's own.
 */
static int a_sysctls_file(const char *proc_sys, const char *path)
{
	size_t len = strlen(proc_sys);
	const char *rest = path + len + 1;
	char real[PATH_MAX], real_top[PATH_MAX];
	struct stat st;

	if (strncmp(path, proc_sys, len) != 0 || path[len] != '/' || !*rest || *rest == '/' ||
	    rest[strlen(rest) - 1] == '/' || strstr(rest, "//") ||
	    strspn(rest, "abcdefghijklmnopqrstuvwxyz0123456789_-/") != strlen(rest))
		return 0;
	if (!realpath(proc_sys, real_top) || !realpath(path, real) || stat(real, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	len = strlen(real_top);
	return strncmp(real, real_top, len) == 0 && real[len] == '/' &&
	       strcmp(real + len, path + strlen(proc_sys)) == 0;
}

/* A value as a sysctl's file gives it: printable (tabs too), its last newline kept. */
static int a_sysctls_value(const char *value)
{
	for (const char *p = value; *p; p++)
		if ((*p < ' ' && *p != '\t' && !(*p == '\n' && p[1] == '\0')) || *p == 0x7f)
			return 0;
	return 1;
}

/*
 * The record's directory is one that only its owner, root or this user, can
 * write: no one else could have put a record there, or swap it for one.
 */
static int a_private_directory(const char *state, char *err, size_t errlen)
{
	char dir[256], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", state);
	slash = strrchr(dir, '/');
	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
	} else if (slash == dir) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
	}
	if (stat(dir, &st) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return 0;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen, "%s: others can write there: the record of a sysctl changed is "
			 "kept only where root alone can write", dir);
		return 0;
	}
	return 1;
}

/*
 * The record a run left, "PID BOOT\nPATH\nORIGINAL", trusted only as this
 * user wrote it (a regular file of its own, mode 0600, one link) and only
 * for a sysctl's file and value: refused while that run lives; else its
 * sysctl put back, and said. 0, or -1 with err.
 */
static int settle_a_record(const char *state, const char *proc_sys, char *err, size_t errlen)
{
	char rec[1024], boot[64], here[64] = "", *path, *original;
	long pid = 0;
	struct stat st;
	int fd = open(state, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", state, strerror(errno)), -1);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0600 || st.st_nlink != 1) {
		close(fd);
		snprintf(err, errlen, "%s: not a record this user wrote (a regular file of uid %d, "
			 "mode 0600, one link): left as it is, and nothing changed", state,
			 (int)geteuid());
		return -1;
	}
	read_fd(fd, rec, sizeof(rec));
	close(fd);
	path = strchr(rec, '\n');
	original = path ? strchr(path + 1, '\n') : NULL;
	if (original) {
		*path++ = '\0';
		*original++ = '\0';
	}
	if (!original || sscanf(rec, "%ld %63s", &pid, boot) != 2 || pid <= 1 ||
	    !a_sysctls_file(proc_sys, path) || !a_sysctls_value(original)) {
		snprintf(err, errlen, "%s: not a record of a sysctl changed (remove it once its "
			 "sysctl is as it should be)", state);
		return -1;
	}
	boot_id(here, sizeof(here));
	if (strcmp(boot, here) == 0 && pid != getpid() && alive(pid)) {
		snprintf(err, errlen, "pid %ld is changing %s now (%s): one such run at a time", pid,
			 path, state);
		return -1;
	}
	if (strcmp(boot, here) == 0 && write_whole(path, original, strlen(original)) < 0) {
		snprintf(err, errlen, "putting %s back as pid %ld found it (%s): %s", path, pid, state,
			 strerror(errno));
		return -1;
	}
	original[strcspn(original, "\n")] = '\0';
	if (strcmp(boot, here) == 0)
		fprintf(stderr, "%s: put %s back to %s: pid %ld changed it and ended without putting "
			"it back (%s)\n", program_invocation_short_name, path, original, pid, state);
	unlink(state);
	return 0;
}

int sysctl_knob_open(struct sysctl_knob *k, const char *name, char *err, size_t errlen)
{
	return sysctl_knob_open_in(k, "/proc/sys", SYSCTL_STATE_FILE, name, err, errlen);
}

int sysctl_knob_open_in(struct sysctl_knob *k, const char *proc_sys, const char *state,
			const char *name, char *err, size_t errlen)
{
	char rec[1024], boot[64];
	ssize_t n;
	int fd, len;

	memset(k, 0, sizeof(*k));
	if (!*name || name[0] == '.' || strstr(name, "..") || strspn(name,
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-") != strlen(name) || strlen(name) > 200) {
		snprintf(err, errlen, "'%s': not a sysctl's name (as net.ipv4.tcp_autocorking)", name);
		return -1;
	}
	if (system_sysctl_path(proc_sys, name, k->path, sizeof(k->path)) < 0) {
		snprintf(err, errlen, "'%s': not a sysctl's name (as net.ipv4.tcp_autocorking)", name);
		return -1;
	}
	if (snprintf(k->state, sizeof(k->state), "%s", state) >= (int)sizeof(k->state)) {
		snprintf(err, errlen, "%s: too long a path for the record", state);
		return -1;
	}
	if (access(k->path, F_OK) < 0) {
		snprintf(err, errlen, "%s: no such sysctl (%s: %s)", name, k->path, strerror(errno));
		return -1;
	}
	if (access(k->path, W_OK) < 0) {
		snprintf(err, errlen, "%s: %s cannot be written (%s): changing a sysctl needs root",
			 name, k->path, strerror(errno));
		return -1;
	}
	if (!a_sysctls_file(proc_sys, k->path)) {
		snprintf(err, errlen, "%s: %s is not a sysctl's file", name, k->path);
		return -1;
	}
	if (!a_private_directory(state, err, errlen))
		return -1;
	/* What a killed run left, put back before the value is read as it was. */
	if (settle_a_record(state, proc_sys, err, errlen) < 0)
		return -1;
	n = read_small(k->path, k->original, sizeof(k->original));
	if (n < 0) {
		snprintf(err, errlen, "%s: %s: %s", name, k->path, strerror(errno));
		return -1;
	}
	k->original_len = n;
	/* The record, before the first change: whoever comes after a SIGKILL puts it back. */
	boot_id(boot, sizeof(boot));
	len = snprintf(rec, sizeof(rec), "%ld %s\n%s\n", (long)getpid(), boot, k->path);
	fd = open(state, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) < 0 || write(fd, rec, len) != len ||
	    write(fd, k->original, k->original_len) != (ssize_t)k->original_len) {
		snprintf(err, errlen, "%s: %s", state, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(state);
		}
		return -1;
	}
	close(fd);
	k->changed = 1;
	return 0;
}

int sysctl_knob_set(struct sysctl_knob *k, const char *value)
{
	return write_whole(k->path, value, strlen(value));
}

void sysctl_knob_restore(struct sysctl_knob *k)
{
	if (!k->changed)
		return;
	k->changed = 0;
	write_whole(k->path, k->original, k->original_len);
	unlink(k->state);
}
