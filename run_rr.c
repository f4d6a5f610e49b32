/*
 * run_rr: run a command, or an interactive shell, under SCHED_RR, so that the
 * process being measured always gets the CPU before cyclesoak's soakers.
 */
#include <err.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/opt.h"
#include "lib/options.h"

struct settings {
	int priority;
};

/* -p: a priority SCHED_RR has. */
static void parse_priority(void *settings, int letter, const char *arg)
{
	((struct settings *)settings)->priority =
		opt_long(letter, arg, sched_get_priority_min(SCHED_RR), sched_get_priority_max(SCHED_RR));
}

static const struct option_row rows[] = {
	OPTIONS_ROW_HELP,
	{ 'p', OPTION_CALL, "priority", .parse = parse_priority,
	  .help = "the SCHED_RR priority, 1 to 99 (default 99)" },
	{ 0 }
};

/* "+": options end at the command, whose own options are its business. */
static const struct option_table table = {
	.about = "Runs command (or a shell) under SCHED_RR; see run_rr(1).",
	.rows = rows,
	.operands = "[command [arg...]]",
	.stop_at_operand = 1,
};

/*
 * Installed set-user-ID root, run_rr must not hand out root: once the policy
 * is set, go back to the real user and group for good, before exec.
 */
static void drop_privileges(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (getegid() != gid && setresgid(gid, gid, gid) < 0)
		err(1, "setresgid %d", (int)gid);
	if (geteuid() != uid && setresuid(uid, uid, uid) < 0)
		err(1, "setresuid %d", (int)uid);
	if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		errx(1, "could still become root after dropping privileges");
}

int main(int argc, char **argv)
{
	struct settings s = { .priority = sched_get_priority_max(SCHED_RR) };
	struct sched_param sp;
	char *shell_argv[] = { NULL, "-i", NULL };
	char **cmd;
	char given[8];
	int first, exec_errno;

	first = options_parse(&table, &s, argc, argv, given, sizeof(given));
	sp = (struct sched_param){ .sched_priority = s.priority };
	if (sched_setscheduler(0, SCHED_RR, &sp) < 0) {
		if (errno == EPERM)
			errx(1, "SCHED_RR needs root or CAP_SYS_NICE: %s", strerror(errno));
		err(1, "sched_setscheduler SCHED_RR %d", sp.sched_priority);
	}
	drop_privileges();
	cmd = argv + first;
	if (first == argc) {
		shell_argv[0] = getenv("SHELL") && *getenv("SHELL") ? getenv("SHELL") : "/bin/sh";
		cmd = shell_argv;
	}
	execvp(cmd[0], cmd);
	/* Saved first: warn() sets errno too when it cannot write, as with stderr closed. */
	exec_errno = errno;
	warn("%s", cmd[0]);
	return exec_errno == ENOENT ? 127 : 126;
}
