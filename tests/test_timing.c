#include <unistd.h>

#include "../lib/timing.h"
#include "check.h"

static void rate_is_kib_per_second_truncated(void)
{
	CHECK_EQ_U64(timing_kbytes_per_sec(1024, NSEC_PER_SEC), 1);
	CHECK_EQ_U64(timing_kbytes_per_sec(1023, NSEC_PER_SEC), 0);
	CHECK_EQ_U64(timing_kbytes_per_sec(10 << 20, 2500000000ULL), 4096);
	CHECK_EQ_U64(timing_kbytes_per_sec(3 * 1024, 2 * NSEC_PER_SEC), 1);
	CHECK_EQ_U64(timing_kbytes_per_sec(1 << 20, 0), 0);
}

static void rate_does_not_overflow_on_big_runs(void)
{
	/* 1 TiB in 100 s: bytes * 1e9 overflows 64 bits. */
	CHECK_EQ_U64(timing_kbytes_per_sec(1ULL << 40, 100 * NSEC_PER_SEC), 10737418);
	CHECK_EQ_U64(timing_kbytes_per_sec(UINT64_MAX, NSEC_PER_SEC), UINT64_MAX / 1024);
}

static void clock_is_monotonic_and_in_ns(void)
{
	uint64_t a = timing_now_ns(), b;

	usleep(20000);
	b = timing_now_ns();
	CHECK(b > a);
	CHECK(b - a >= 20000000ULL && b - a < 2 * NSEC_PER_SEC);
	CHECK(timing_secs(1500000000ULL) == 1.5);
}

static void tick_sets_the_flag_and_interrupts_pause(void)
{
	static volatile sig_atomic_t flag;
	uint64_t start = timing_now_ns();
	int ticks = 0;

	timing_tick_start(50, &flag);
	while (ticks < 3 && timing_now_ns() - start < 2 * NSEC_PER_SEC) {
		pause();
		if (flag) {
			flag = 0;
			ticks++;
		}
	}
	timing_tick_stop();
	CHECK(ticks == 3);
	CHECK(timing_now_ns() - start >= 140000000ULL);
}

int main(void)
{
	RUN(rate_is_kib_per_second_truncated);
	RUN(rate_does_not_overflow_on_big_runs);
	RUN(clock_is_monotonic_and_in_ns);
	RUN(tick_sets_the_flag_and_interrupts_pause);
	return CHECK_EXIT();
}
