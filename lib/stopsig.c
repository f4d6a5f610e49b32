#include <signal.h>
#include <stddef.h>

#include "stopsig.h"

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define N_STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

void stopsig_catch(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler }, old;

	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		if (sigaction(stop_signals[i], NULL, &old) == 0 &&
		    (old.sa_handler != SIG_IGN || stop_signals[i] == SIGTERM))
			sigaction(stop_signals[i], &sa, NULL);
}

void stopsig_uncatch(void (*handler)(int))
{
	struct sigaction old;

	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler == handler)
			signal(stop_signals[i], SIG_DFL);
}

void stopsig_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		sigaddset(set, stop_signals[i]);
}
