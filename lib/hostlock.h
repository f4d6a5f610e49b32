/* hostlock: the one lock on a host that keeps two meters apart. */
#ifndef ZC_HOSTLOCK_H
#define ZC_HOSTLOCK_H

#include <stddef.h>
#include <stdio.h>
#include <sched.h>
#include <sys/types.h>

/*
 * Two meters on one host count each other's soakers, and both figures are
 * wrong. While its soakers run, a meter holds a lock on this file (fcntl
 * F_SETLK: the kernel drops it when the process dies), and soak_start()
 * refuses, naming the holder's pid, while another holds it. /tmp is one
 * for every network namespace of the host, so a meter in another one
 * (ip netns exec) is seen too.
 */
#define SOAK_LOCK_FILE "/tmp/zc-meter.lock"

/*
 * The lock's bytes: a CPU's hold byte and its meter byte. A meter (its
 * soakers running) locks the meter byte of each CPU it soaks, and its hold
 * byte as well unless it runs inside the hold of the process that holds
 * that (hostlock_inside): a holder (cyclesoak -H, which zc-matrix and make
 * check run) locks every CPU's hold byte and keeps every other meter on
 * the host waiting, while the meters run inside it take their turns.
 * Meters whose CPUs do not overlap run at once (-U); one that overlaps
 * waits. Bytes 0 and 1 were the whole host's before; a lock of the whole
 * file (an older zc) stands in the way of all.
 */
#define HOSTLOCK_HOLD_BYTE(cpu) (2 + (off_t)(cpu))
#define HOSTLOCK_METER_BYTE(cpu) (2 + (off_t)CPU_SETSIZE + (off_t)(cpu))

/* How long a meter waits for the host's meter by default (ZC_METER_WAIT), and at most. */
#define HOSTLOCK_DEFAULT_WAIT_SECS 600
#define HOSTLOCK_MAX_WAIT_SECS 86400
/* How often a waiting meter tries again, and says it is still waiting. */
#define HOSTLOCK_POLL_MS 100
#define HOSTLOCK_SAY_EVERY_MS 30000

/*
 * Open the lock file at path and lock it for good (the kernel drops the lock
 * when the process dies), as a meter of the n_cpus CPUs cpus[] (cpus NULL:
 * every CPU the host has) (hostlock_take) or a holder of the whole host
 * (hostlock_hold): 0 with *lock_fd open. Held by another, it tries again
 * every HOSTLOCK_POLL_MS for wait_secs in all, saying on say (unless NULL)
 * who holds it and for which CPUs, once for each holder, that it is still
 * waiting every HOSTLOCK_SAY_EVERY_MS, and how long it waited once it has
 * the lock; then -1 with a line in err (errlen bytes) that names the
 * process and user that hold it, its CPUs, and the wait. Or -1 with what is
 * wrong with the file and whose it is. The file is made readable and
 * writable by all, whatever the umask, so that every user's meters share
 * it; one that exists is opened without O_CREAT, which
 * fs.protected_regular would refuse in /tmp for a file of another user's. A
 * symbolic link or anything but a regular file there is refused
 * (O_NOFOLLOW, then fstat), never followed: where fs.protected_symlinks is
 * 0, root would otherwise lock whatever another user's link names.
 */
int hostlock_take(const char *path, const int *cpus, int n_cpus, int *lock_fd, long wait_secs,
		  FILE *say, char *err, size_t errlen);
int hostlock_hold(const char *path, int *lock_fd, long wait_secs, FILE *say, char *err, size_t errlen);
/* Either (meter 1 or 0), saying it still waits every say_every_ms. */
int hostlock_wait_for(const char *path, int meter, const int *cpus, int n_cpus, int *lock_fd,
		      long wait_secs, FILE *say, long say_every_ms, char *err, size_t errlen);

/* ZC_METER_WAIT: the seconds a meter waits, HOSTLOCK_DEFAULT_WAIT_SECS if unset; -1 with err if bad. */
long hostlock_wait_secs(char *err, size_t errlen);

/*
 * This process runs inside the hold of holder: the holder is one of its
 * ancestors (cyclesoak -H command), or was started by one of them, or by
 * this process itself (a script that holds the meter beside what it runs);
 * or it was handed the holder's token (HOSTLOCK_INSIDE_ENV).
 */
int hostlock_inside(pid_t holder);

/*
 * A process started on this host another way than as a descendant (through
 * ssh to it, as zc-matrix starts the far end when that is this machine)
 * runs inside the hold when this holds the holder's token: 32 hex digits
 * the holder drew at random and keeps where only its own user and root can
 * read it (a memfd of its own, through /proc/PID/fd), and hands to its
 * command in this variable. A word that names a pid, or any other, is not
 * inside: nothing a variable can claim lets a meter past the hold.
 */
#define HOSTLOCK_INSIDE_ENV "ZC_METER_INSIDE"

/*
 * The holder of lock_fd (hostlock_hold) draws its token into word (33
 * bytes at least) and keeps it while it lives. Held inside another's hold,
 * it holds nothing of its own: word is that holder's token where it was
 * handed down (HOSTLOCK_INSIDE_ENV), else empty. 0, or -1 with err.
 */
int hostlock_hand_token(int lock_fd, char *word, size_t len, char *err, size_t errlen);

#endif
