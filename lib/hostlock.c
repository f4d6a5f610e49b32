#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostlock.h"

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
static int lock_refused(const char *path, const char *what, char *err, size_t errlen)
{
	struct stat st;
	char owner[64] = "?";

	if (lstat(path, &st) == 0)
		user_name(st.st_uid, owner, sizeof(owner));
	snprintf(err, errlen, "%s (the lock that keeps two meters apart) %s; it is user %s's: "
		 "they or root can remove it", path, what, owner);
	return -1;
}

int hostlock_take(const char *path, int *lock_fd, char *err, size_t errlen)
{
	const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char name[64], user[64], what[160];
	struct stat st;
	int fd = open(path, flags);

	if (fd < 0 && errno == ENOENT) {
		fd = open(path, flags | O_CREAT | O_EXCL, 0666);
		if (fd >= 0)
			fchmod(fd, 0666);
		else if (errno == EEXIST)
			fd = open(path, flags);
	}
	if (fd < 0 && errno == ELOOP)
		return lock_refused(path, "is a symbolic link", err, errlen);
	if (fd < 0 && errno == EACCES)
		return lock_refused(path, "cannot be opened: Permission denied", err, errlen);
	if (fd < 0) {
		snprintf(err, errlen, "%s (the lock that keeps two meters apart): %s",
			 path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return lock_refused(path, "is not a regular file", err, errlen);
	}
	if (fcntl(fd, F_SETLK, &fl) == 0) {
		*lock_fd = fd;
		return 0;
	}
	if (errno != EACCES && errno != EAGAIN) {
		snprintf(err, errlen, "locking %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		fl.l_pid = 0;
	close(fd);
	process_name(fl.l_pid, name, sizeof(name));
	process_user(fl.l_pid, user, sizeof(user));
	snprintf(what, sizeof(what), "pid %d (%s, user %s)", (int)fl.l_pid, name, user);
	snprintf(err, errlen,
		 "another meter is running on this host: %s holds %s; two meters count "
		 "each other's soakers, and both would be wrong", what, path);
	return -1;
}
