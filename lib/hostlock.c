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

#include "cpu.h"
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
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = HOSTLOCK_HOLD_BYTE(0), .l_len = CPU_SETSIZE };
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

/* A byte's lock: F_WRLCK to take it, F_UNLCK to let it go; 0, or -1 with errno. */
static int set_byte(int fd, short type, off_t byte, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = len };

	return fcntl(fd, F_SETLK, &fl);
}

/* Who holds a lock on a byte of [byte, byte + len) against this process: its pid, or 0. */
static pid_t holder_of(int fd, off_t byte, off_t len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = len };

	if (fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		return 0;
	return fl.l_pid > 0 ? fl.l_pid : -1;
}

/* The set a lock is for: cpus[0..n), or every CPU of the host where cpus is NULL. */
struct lock_set {
	const int *cpus;
	int n;
};

static int set_cpu(const struct lock_set *set, int i)
{
	return set->cpus ? set->cpus[i] : i;
}

static int set_size(const struct lock_set *set)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (set->cpus)
		return set->n;
	return n > 0 && n <= CPU_SETSIZE ? (int)n : CPU_SETSIZE;
}

/* Let go of the bytes of set's first n CPUs at base + cpu. */
static void let_go(int fd, off_t base, const struct lock_set *set, int n)
{
	for (int i = 0; i < n; i++)
		set_byte(fd, F_UNLCK, base + set_cpu(set, i), 1);
}

/*
 * One try: a meter takes each of its CPUs' meter bytes, and their hold
 * bytes too unless it runs inside their holder's hold (hostlock_inside); a
 * holder takes the hold bytes the same way, and the meter bytes only for a
 * moment, to know that no meter is running on those CPUs. What a try took
 * and could not finish it lets go. 0 taken, 1 held by another (*holder,
 * *cpu), -1 on an error.
 */
static int try_lock(int fd, int meter, const struct lock_set *set, pid_t *holder, int *cpu,
		    const char *path, char *err, size_t errlen)
{
	int n = set_size(set), rc = 0, metered = 0, took_hold[CPU_SETSIZE], saved;

	for (int i = 0; i < n && rc == 0; i++) {
		int c = set_cpu(set, i);

		took_hold[i] = set_byte(fd, F_WRLCK, HOSTLOCK_HOLD_BYTE(c), 1) == 0;
		if (took_hold[i])
			continue;
		rc = errno == EACCES || errno == EAGAIN ? 1 : -1;
		*holder = rc == 1 ? holder_of(fd, HOSTLOCK_HOLD_BYTE(c), 1) : 0;
		*cpu = c;
		/* Inside a hold, a meter takes its turn; a holder holds nothing more. */
		if (rc == 1 && *holder > 0 && hostlock_inside(*holder))
			rc = 0;
		for (int k = i + 1; rc != 0 && k < n; k++)
			took_hold[k] = 0;
	}
	for (; rc == 0 && metered < n; metered++) {
		int c = set_cpu(set, metered);

		if (set_byte(fd, F_WRLCK, HOSTLOCK_METER_BYTE(c), 1) == 0)
			continue;
		rc = errno == EACCES || errno == EAGAIN ? 1 : -1;
		*holder = rc == 1 ? holder_of(fd, HOSTLOCK_METER_BYTE(c), 1) : 0;
		*cpu = c;
	}
	/* A holder starts once no meter is running, even inside another hold. */
	if (rc == 0 && !meter)
		let_go(fd, HOSTLOCK_METER_BYTE(0), set, n);
	if (rc == 0)
		return 0;
	/* Not all of it: let go of what this try took, so that two waiting cannot hold each other up. */
	saved = errno;
	let_go(fd, HOSTLOCK_METER_BYTE(0), set, rc == 1 ? metered - 1 : metered);
	for (int k = 0; k < n; k++)
		if (took_hold[k])
			set_byte(fd, F_UNLCK, HOSTLOCK_HOLD_BYTE(set_cpu(set, k)), 1);
	if (rc == 1)
		return 1;
	snprintf(err, errlen, "locking %s: %s", path, strerror(saved));
	return -1;
}

/* The CPUs whose hold or meter byte pid holds, "0-1" or "3", into out. */
static const char *cpus_held_by(int fd, pid_t pid, char *out, size_t len)
{
	static int cpus[CPU_SETSIZE];
	int n = 0;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (holder_of(fd, HOSTLOCK_HOLD_BYTE(c), 1) == pid ||
		    holder_of(fd, HOSTLOCK_METER_BYTE(c), 1) == pid)
			cpus[n++] = c;
	return cpu_list_text(cpus, n, out, len);
}

/* Who holds it, and which CPUs: "pid N (name, user U) holds PATH for CPUs 0-1". */
static void describe(int fd, pid_t pid, const char *path, char *what, size_t size)
{
	char name[64], user[64], cpus[128];

	process_name(pid, name, sizeof(name));
	process_user(pid, user, sizeof(user));
	cpus_held_by(fd, pid, cpus, sizeof(cpus));
	snprintf(what, size, "pid %d (%s, user %s) holds %s for CPU%s %s", (int)pid, name, user, path,
		 strpbrk(cpus, ",-") ? "s" : "", cpus[0] ? cpus : "?");
}

int hostlock_wait_for(const char *path, int meter, const int *cpus, int n_cpus, int *lock_fd,
		      long wait_secs, FILE *say, long say_every_ms, char *err, size_t errlen)
{
	char what[400];
	pid_t holder = 0, said = -1;
	uint64_t start = timing_now_ns(), now = start, next_say = 0;
	uint64_t deadline = start + (uint64_t)wait_secs * NSEC_PER_SEC;
	struct lock_set set = { .cpus = cpus, .n = n_cpus };
	int fd = open_lock(path, err, errlen), rc, cpu = 0;

	if (fd < 0)
		return -1;
	while ((rc = try_lock(fd, meter, &set, &holder, &cpu, path, err, errlen)) == 1 &&
	       now < deadline) {
		if (say && holder != said) {
			describe(fd, holder, path, what, sizeof(what));
			fprintf(say, "%s: waiting for the host's meter: %s (at most %ld s in all; "
				"ZC_METER_WAIT sets it, 0 to not wait)\n", program_invocation_short_name,
				what, wait_secs);
			said = holder;
			next_say = now + (uint64_t)say_every_ms * 1000000ULL;
		} else if (say && now >= next_say) {
			fprintf(say, "%s: still waiting for the host's meter: %.0f s of at most %ld; %s\n",
				program_invocation_short_name, (double)(now - start) / NSEC_PER_SEC,
				wait_secs, what);
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
	if (rc < 0) {
		close(fd);
		return -1;
	}
	describe(fd, holder, path, what, sizeof(what));
	close(fd);
	snprintf(err, errlen,
		 "another meter is running on this host: %s; two meters count each other's "
		 "soakers, and both would be wrong", what);
	if (wait_secs > 0)
		snprintf(err + strlen(err), errlen - strlen(err), " (waited %ld s for it: ZC_METER_WAIT)",
			 wait_secs);
	return -1;
}

int hostlock_take(const char *path, const int *cpus, int n_cpus, int *lock_fd, long wait_secs,
		  FILE *say, char *err, size_t errlen)
{
	return hostlock_wait_for(path, 1, cpus, n_cpus, lock_fd, wait_secs, say,
				 HOSTLOCK_SAY_EVERY_MS, err, errlen);
}

int hostlock_hold(const char *path, int *lock_fd, long wait_secs, FILE *say, char *err, size_t errlen)
{
	return hostlock_wait_for(path, 0, NULL, 0, lock_fd, wait_secs, say, HOSTLOCK_SAY_EVERY_MS,
				 err, errlen);
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
