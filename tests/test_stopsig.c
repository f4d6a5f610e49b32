/* The stop signals: caught where they were not ignored, SIGTERM always, and let go again. */
#include <signal.h>

#include "../lib/stopsig.h"
#include "check.h"

static volatile sig_atomic_t got;

static void handler(int sig)
{
	got = sig;
}

/* The three stop signals set to was, then caught. */
static void catch_from(void (*was)(int))
{
	signal(SIGINT, was);
	signal(SIGHUP, was);
	signal(SIGTERM, was);
	stopsig_catch(handler);
}

static void (*disposition(int sig))(int)
{
	struct sigaction old;

	sigaction(sig, NULL, &old);
	return old.sa_handler;
}

static void each_stop_signal_is_caught_and_reaches_the_handler(void)
{
	catch_from(SIG_DFL);
	CHECK(disposition(SIGINT) == handler);
	CHECK(disposition(SIGTERM) == handler);
	CHECK(disposition(SIGHUP) == handler);
	got = 0;
	raise(SIGHUP);
	CHECK_EQ_U64(got, SIGHUP);
	CHECK(disposition(SIGQUIT) != handler);
	stopsig_uncatch(handler);
}

/* nohup, a background job: a hangup or an interrupt ignored stays ignored; SIGTERM never is. */
static void an_ignored_hangup_or_interrupt_stays_ignored(void)
{
	catch_from(SIG_IGN);
	CHECK(disposition(SIGINT) == SIG_IGN);
	CHECK(disposition(SIGHUP) == SIG_IGN);
	CHECK(disposition(SIGTERM) == handler);
	got = 0;
	raise(SIGHUP);
	CHECK_EQ_U64(got, 0);
	stopsig_uncatch(handler);
	CHECK(disposition(SIGHUP) == SIG_IGN);
	CHECK(disposition(SIGTERM) == SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static void uncatch_puts_back_the_default_where_the_handler_was(void)
{
	catch_from(SIG_DFL);
	stopsig_uncatch(handler);
	CHECK(disposition(SIGINT) == SIG_DFL);
	CHECK(disposition(SIGTERM) == SIG_DFL);
	CHECK(disposition(SIGHUP) == SIG_DFL);
}

static void the_set_holds_the_three_and_no_other(void)
{
	sigset_t set;

	stopsig_set(&set);
	CHECK(sigismember(&set, SIGINT) == 1);
	CHECK(sigismember(&set, SIGTERM) == 1);
	CHECK(sigismember(&set, SIGHUP) == 1);
	CHECK(sigismember(&set, SIGQUIT) == 0);
	CHECK(sigismember(&set, SIGCHLD) == 0);
}

int main(void)
{
	RUN(each_stop_signal_is_caught_and_reaches_the_handler);
	RUN(an_ignored_hangup_or_interrupt_stays_ignored);
	RUN(uncatch_puts_back_the_default_where_the_handler_was);
	RUN(the_set_holds_the_three_and_no_other);
	return CHECK_EXIT();
}
