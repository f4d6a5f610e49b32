/*
 * system: what a run ran on, for -J, so that two runs made on different
 * boots can be set side by side (scripts/zc-report --compare reads
 * zc-matrix's record of the same): zc's version, the CPU, the sysctls that
 * move the figures, and the kernel's mitigations.
 */
#ifndef ZC_SYSTEM_H
#define ZC_SYSTEM_H

#include "json.h"

/* The sysctls recorded, as /proc/sys names them, dots for slashes. */
extern const char *const system_sysctls[];

/*
 * -J's "system" object: "zc_version", "cpu_model", "cpus" (online),
 * "sysctls" (each a string as /proc/sys gives it, blanks made one space;
 * null where unreadable) and "mitigations" (each CPU vulnerability's line).
 */
void system_json(struct json *j);

/* A sysctl's value, blanks made one space, into buf; -1 if unreadable. */
int system_sysctl(const char *name, char *buf, size_t len);
/* Its file under proc_sys ("/proc/sys"), dots made slashes, into path: 0, or -1 if it does not fit. */
int system_sysctl_path(const char *proc_sys, const char *name, char *path, size_t len);

#endif
