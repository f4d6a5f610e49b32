/*
 * The host's lock, at a path of the test's own: taken once, refused to
 * another process with its name and user, and never taken through a
 * symbolic link or on a FIFO.
 */
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hostlock.h"
#include "check.h"

static char dir[] = "/tmp/test_hostlock.XXXXXX";

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
	CHECK(hostlock_take(path, &fd, got, sizeof(got)) == 0 && fd >= 0);
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0666);
	CHECK(pipe(fds) == 0);
	kid = fork();
	if (kid == 0) {
		char err[512] = "";
		int kfd = -1, rc = hostlock_take(path, &kfd, err, sizeof(err));

		if (write(fds[1], err, strlen(err)) < 0)
			_exit(3);
		_exit(rc == -1 && kfd == -1 ? 0 : 1);
	}
	close(fds[1]);
	CHECK(read(fds[0], got, sizeof(got) - 1) > 0);
	close(fds[0]);
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(want, sizeof(want),
		 "another meter is running on this host: pid %d (test_hostlock, user %s) holds %s; "
		 "two meters count each other's soakers, and both would be wrong",
		 (int)getpid(), me(), path);
	CHECK_STR(got, want);
	close(fd);
	unlink(path);
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
	CHECK(hostlock_take(path, &fd, err, sizeof(err)) == -1 && fd == -1);
	snprintf(want, sizeof(want), "%s (the lock that keeps two meters apart) is a symbolic "
		 "link; it is user %s's: they or root can remove it", path, me());
	CHECK_STR(err, want);
	CHECK(lstat(target, &sb) == -1);
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(hostlock_take(path, &fd, err, sizeof(err)) == -1 && fd == -1);
	snprintf(want, sizeof(want), "%s (the lock that keeps two meters apart) is not a regular "
		 "file; it is user %s's: they or root can remove it", path, me());
	CHECK_STR(err, want);
	unlink(path);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(a_second_process_is_refused_and_told_who_holds_it);
	RUN(a_link_or_a_fifo_is_refused);
	rmdir(dir);
	return CHECK_EXIT();
}
