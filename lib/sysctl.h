/*
 * sysctl: one sysctl that a run changes (zcc -X NAME=V1,V2,...), and puts
 * back: at the run's end, on a stop signal, and, after a SIGKILL, by the
 * next run, which finds what the killed one left.
 */
#ifndef ZC_SYSCTL_H
#define ZC_SYSCTL_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The record of a change in progress: the pid and boot of the run that made
 * it, the file and the value it had before. One at a time on a host; root's
 * alone (/proc/sys is root's to write), in a directory only root can write.
 * A record is trusted only as the user wrote it (a regular file of its own,
 * mode 0600, one link), naming a sysctl's file (no "..", no link out of
 * /proc/sys) and a value without control characters.
 */
#define SYSCTL_STATE_FILE "/run/zc-sysctl.state"

struct sysctl_knob {
	char path[256];		/* /proc/sys/... */
	char state[256];	/* SYSCTL_STATE_FILE */
	char original[256];	/* its value before the run, as read (its newline kept) */
	size_t original_len;
	int changed;		/* the state file is ours, and the value may differ */
};

/*
 * NAME (net.ipv4.tcp_autocorking) as a knob: its file readable and writable
 * (root), its value read. A change a killed run left is put back first, and
 * said on stderr; one another live run is making is refused. 0, or -1 with
 * a line in err.
 */
int sysctl_knob_open(struct sysctl_knob *k, const char *name, char *err, size_t errlen);
/* The same, the files under proc_sys and the record at state (the tests' own). */
int sysctl_knob_open_in(struct sysctl_knob *k, const char *proc_sys, const char *state,
			const char *name, char *err, size_t errlen);
/* Set it to value ("0", "4096 16384 4194304"): 0, or -1 with errno. */
int sysctl_knob_set(struct sysctl_knob *k, const char *value);
/* Its value as it was, and the record gone. Async-signal-safe; once. */
void sysctl_knob_restore(struct sysctl_knob *k);

#endif
