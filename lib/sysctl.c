#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysctl.h"
#include "system.h"

/* The whole of a small file, at most len - 1 bytes, NUL-ended: its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* Write it whole to an existing file; async-signal-safe. */
static int write_whole(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	if (len)
		n = write(fd, buf, len);
	close(fd);
	return len == 0 || n == (ssize_t)len ? 0 : -1;
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
 * The record a run left, "PID BOOT\nPATH\nORIGINAL": refused while that run
 * lives; else its sysctl put back, and said. 0, or -1 with err.
 */
static int settle_a_record(const char *state, const char *proc_sys, char *err, size_t errlen)
{
	char rec[1024], boot[64], here[64] = "", *path, *original;
	long pid = 0;

	if (read_small(state, rec, sizeof(rec)) < 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", state, strerror(errno)), -1);
	path = strchr(rec, '\n');
	original = path ? strchr(path + 1, '\n') : NULL;
	if (!original || sscanf(rec, "%ld %63s", &pid, boot) != 2 || pid <= 1 ||
	    strncmp(path + 1, proc_sys, strlen(proc_sys)) != 0 || path[1 + strlen(proc_sys)] != '/') {
		snprintf(err, errlen, "%s: not a record of a sysctl changed (remove it once its "
			 "sysctl is as it should be)", state);
		return -1;
	}
	*path++ = '\0';
	*original++ = '\0';
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
	snprintf(k->state, sizeof(k->state), "%s", state);
	if (access(k->path, F_OK) < 0) {
		snprintf(err, errlen, "%s: no such sysctl (%s: %s)", name, k->path, strerror(errno));
		return -1;
	}
	if (access(k->path, W_OK) < 0) {
		snprintf(err, errlen, "%s: %s cannot be written (%s): changing a sysctl needs root",
			 name, k->path, strerror(errno));
		return -1;
	}
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
	if (fd < 0 || write(fd, rec, len) != len ||
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
