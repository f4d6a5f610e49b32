/*
 * The signals that stop a run, SIGINT, SIGTERM and SIGHUP, caught the same
 * way by every program that must clean up before it goes (zcc's streams and
 * soakers, cyclesoak's soakers): a run started with SIGINT or SIGHUP ignored
 * (a background job, nohup) keeps it ignored; SIGTERM is always caught.
 */
#ifndef ZC_STOPSIG_H
#define ZC_STOPSIG_H

#include <signal.h>

/* handler for each stop signal not ignored, with every signal blocked while it runs. */
void stopsig_catch(void (*handler)(int));
/* Back to the default where handler was put (a child that must die of them). */
void stopsig_uncatch(void (*handler)(int));
/* The stop signals as a set, for sigprocmask(). */
void stopsig_set(sigset_t *set);

#endif
