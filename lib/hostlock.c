#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostlock.h"
#include "timing.h"

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

/* Open (or make) the lock file: the fd, or -1 with err. */
static int open_lock(const char *path, char *err, size_t errlen)
{
	const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
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
	return fd;
}

/* The parent of process pid, from /proc; 0 if unknown. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	/* pid (comm) state ppid: comm may hold anything, so read after its last ')'. */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && sscanf(p + 1, " %*c %d", &ppid) != 1)
		ppid = 0;
	fclose(f);
	return ppid;
}

/* Process pid is process of's parent, or its parent's, and so on (init aside). */
static int is_ancestor_of(pid_t pid, pid_t of)
{
	for (pid_t p = parent_of(of); p > 1; p = parent_of(p))
		if (p == pid)
			return 1;
	return 0;
}

/* The hold's relation, from process me: holder is its ancestor, or was started by it or one of them. */
static int inside_from(pid_t me, pid_t holder)
{
	pid_t started_by = parent_of(holder);

	return is_ancestor_of(holder, me) || started_by == me ||
	       (started_by > 1 && is_ancestor_of(started_by, me));
}

/*
 * The holder's token: a memfd of that name in the holder, holding the
 * token's 32 hex digits. Only a process that may read the holder's
 * /proc/PID/fd (its own user, or root) can open it; only a process the
 * token was handed to (HOSTLOCK_INSIDE_ENV) knows what it should hold.
 */
#define TOKEN_NAME "zc-meter-token"
#define TOKEN_HEX 32

/* A token's form: 32 lower-case hex digits. */
static int a_token(const char *word)
{
	return word && strlen(word) == TOKEN_HEX &&
	       strspn(word, "0123456789abcdef") == TOKEN_HEX;
}

/* HOSTLOCK_INSIDE_ENV holds the token that holder keeps: it was handed to this process. */
static int inside_by_token(pid_t holder)
{
	const char *word = getenv(HOSTLOCK_INSIDE_ENV);
	char dir[64], path[384], link[128], kept[TOKEN_HEX + 1];
	struct dirent *e;
	int found = 0;
	DIR *d;

	if (!a_token(word))
		return 0;
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)holder);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (strncmp(link, "/memfd:" TOKEN_NAME " ", strlen("/memfd:" TOKEN_NAME " ")) != 0)
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = pread(fd, kept, TOKEN_HEX, 0);
		close(fd);
		kept[n == TOKEN_HEX ? TOKEN_HEX : 0] = '\0';
		found = a_token(kept) && strcmp(kept, word) == 0;
	}
	closedir(d);
	return found;
}

int hostlock_inside(pid_t holder)
{
	return inside_from(getpid(), holder) || inside_by_token(holder);
}

int hostlock_hand_token(int lock_fd, char *word, size_t len, char *err, size_t errlen)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = HOSTLOCK_HOLD,
			    .l_len = 1 };
	unsigned char raw[TOKEN_HEX / 2];
	const char *given = getenv(HOSTLOCK_INSIDE_ENV);
	int fd;

	if (len < TOKEN_HEX + 1) {
		snprintf(err, errlen, "no room for the token");
		return -1;
	}
	/* Inside another's hold: that holder's token, where it was handed down, is the one. */
	if (fcntl(lock_fd, F_GETLK, &fl) < 0) {
		snprintf(err, errlen, "reading the hold: %s", strerror(errno));
		return -1;
	}
	if (fl.l_type != F_UNLCK) {
		snprintf(word, len, "%s", a_token(given) ? given : "");
		return 0;
	}
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		snprintf(err, errlen, "getrandom: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(word + 2 * i, 3, "%02x", raw[i]);
	fd = memfd_create(TOKEN_NAME, MFD_CLOEXEC);
	if (fd < 0 || write(fd, word, TOKEN_HEX) != TOKEN_HEX) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		word[0] = '\0';
		return -1;
	}
	/* Kept open for the hold's life: the kernel closes it with the holder. */
	return 0;
}

/*
 * One byte of the lock: 0 taken, 1 held by another (*holder: its pid, 0 if
 * unknown), -1 on an error (err).
 */
static int lock_byte(int fd, off_t byte, pid_t *holder, const char *path, char *err, size_t errlen)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };

	if (fcntl(fd, F_SETLK, &fl) == 0)
		return 0;
	if (errno != EACCES && errno != EAGAIN) {
		snprintf(err, errlen, "locking %s: %s", path, strerror(errno));
		return -1;
	}
	if (fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		fl.l_pid = 0;
	*holder = fl.l_pid;
	return 1;
}

/*
 * One try: a meter takes byte HOSTLOCK_METER, and byte HOSTLOCK_HOLD too
 * unless it runs inside the holder's hold (hostlock_inside); a holder takes
 * byte HOSTLOCK_HOLD the same way, and byte HOSTLOCK_METER only for a
 * moment, to know that no meter is running. 0 taken, 1 held by another (*holder), -1 on an error.
 */
static int try_lock(int fd, int meter, pid_t *holder, const char *path, char *err, size_t errlen)
{
	int rc = lock_byte(fd, HOSTLOCK_HOLD, holder, path, err, errlen);

	/* Inside a hold, a meter takes its turn; a holder holds nothing more. */
	if (rc == 1 && *holder > 0 && hostlock_inside(*holder))
		rc = 0;
	if (rc != 0)
		return rc;
	rc = lock_byte(fd, HOSTLOCK_METER, holder, path, err, errlen);
	/* A holder starts once no meter is running, even inside another hold. */
	if (rc == 0 && !meter) {
		struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET,
				    .l_start = HOSTLOCK_METER, .l_len = 1 };

		fcntl(fd, F_SETLK, &fl);
	}
	return rc;
}

/* Who holds it: "pid N (name, user U)". */
static void describe(pid_t pid, char *what, size_t size)
{
	char name[64], user[64];

	process_name(pid, name, sizeof(name));
	process_user(pid, user, sizeof(user));
	snprintf(what, size, "pid %d (%s, user %s)", (int)pid, name, user);
}

int hostlock_wait_for(const char *path, int meter, int *lock_fd, long wait_secs, FILE *say,
		      long say_every_ms, char *err, size_t errlen)
{
	char what[160];
	pid_t holder = 0, said = -1;
	uint64_t start = timing_now_ns(), now = start, next_say = 0;
	uint64_t deadline = start + (uint64_t)wait_secs * NSEC_PER_SEC;
	int fd = open_lock(path, err, errlen), rc;

	if (fd < 0)
		return -1;
	while ((rc = try_lock(fd, meter, &holder, path, err, errlen)) == 1 && now < deadline) {
		if (say && holder != said) {
			describe(holder, what, sizeof(what));
			fprintf(say, "%s: waiting for the host's meter: %s holds %s (at most %ld s in "
				"all; ZC_METER_WAIT sets it, 0 to not wait)\n", program_invocation_short_name,
				what, path, wait_secs);
			said = holder;
			next_say = now + (uint64_t)say_every_ms * 1000000ULL;
		} else if (say && now >= next_say) {
			fprintf(say, "%s: still waiting for the host's meter: %.0f s of at most %ld; %s "
				"holds it\n", program_invocation_short_name,
				(double)(now - start) / NSEC_PER_SEC, wait_secs, what);
			next_say = now + (uint64_t)say_every_ms * 1000000ULL;
		}
		poll(NULL, 0, HOSTLOCK_POLL_MS);
		now = timing_now_ns();
	}
	if (rc == 0) {
		if (say && said != -1)
			fprintf(say, "%s: took the host's meter after %.1f s of waiting\n",
				program_invocation_short_name, (double)(timing_now_ns() - start) / NSEC_PER_SEC);
		*lock_fd = fd;
		return 0;
	}
	close(fd);
	if (rc < 0)
		return -1;
	describe(holder, what, sizeof(what));
	snprintf(err, errlen,
		 "another meter is running on this host: %s holds %s; two meters count "
		 "each other's soakers, and both would be wrong", what, path);
	if (wait_secs > 0)
		snprintf(err + strlen(err), errlen - strlen(err), " (waited %ld s for it: ZC_METER_WAIT)",
			 wait_secs);
	return -1;
}

int hostlock_take(const char *path, int *lock_fd, long wait_secs, FILE *say, char *err, size_t errlen)
{
	return hostlock_wait_for(path, 1, lock_fd, wait_secs, say, HOSTLOCK_SAY_EVERY_MS, err, errlen);
}

int hostlock_hold(const char *path, int *lock_fd, long wait_secs, FILE *say, char *err, size_t errlen)
{
	return hostlock_wait_for(path, 0, lock_fd, wait_secs, say, HOSTLOCK_SAY_EVERY_MS, err, errlen);
}

long hostlock_wait_secs(char *err, size_t errlen)
{
	const char *v = getenv("ZC_METER_WAIT");
	char *end;
	long secs;

	if (!v)
		return HOSTLOCK_DEFAULT_WAIT_SECS;
	errno = 0;
	secs = strtol(v, &end, 10);
	if (!*v || *end || errno || secs < 0 || secs > HOSTLOCK_MAX_WAIT_SECS) {
		snprintf(err, errlen, "ZC_METER_WAIT '%.32s': not a number of seconds from 0 to %d", v,
			 HOSTLOCK_MAX_WAIT_SECS);
		return -1;
	}
	return secs;
}
