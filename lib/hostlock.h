/* hostlock: the one lock on a host that keeps two meters apart. */
#ifndef ZC_HOSTLOCK_H
#define ZC_HOSTLOCK_H

#include <stddef.h>

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
 * Open the lock file at path and lock it for good (the kernel drops the lock
 * when the process dies): 0 with *lock_fd open, or -1 with a line in err
 * (errlen bytes) that names the process and user that hold it, or what is
 * wrong with the file and whose it is. The file is made readable and
 * writable by all, whatever the umask, so that every user's meters share
 * it; one that exists is opened without O_CREAT, which fs.protected_regular
 * would refuse in /tmp for a file of another user's. A symbolic link or
 * anything but a regular file there is refused (O_NOFOLLOW, then fstat),
 * never followed: where fs.protected_symlinks is 0, root would otherwise
 * lock whatever another user's link names.
 */
int hostlock_take(const char *path, int *lock_fd, char *err, size_t errlen);

#endif
