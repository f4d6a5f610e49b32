#include <errno.h>
#include <sched.h>

#include "../lib/cpu.h"
#include "check.h"

static void allowed_cpus_match_the_affinity_mask(void)
{
	int cpus[CPU_SETSIZE];
	cpu_set_t set;
	int n = cpu_allowed(cpus, CPU_SETSIZE);

	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
	CHECK(n >= 1);
	CHECK(n == CPU_COUNT(&set));
	for (int i = 0; i < n; i++)
		CHECK(CPU_ISSET(cpus[i], &set));
	for (int i = 1; i < n; i++)
		CHECK(cpus[i] > cpus[i - 1]);
}

static void pin_leaves_only_that_cpu(void)
{
	int cpus[CPU_SETSIZE], n = cpu_allowed(cpus, CPU_SETSIZE), last = cpus[n - 1];
	int after[CPU_SETSIZE];

	CHECK(cpu_pin(last) == 0);
	CHECK(cpu_allowed(after, CPU_SETSIZE) == 1 && after[0] == last);
	CHECK(sched_getcpu() == last);
}

static void pin_to_a_cpu_that_is_not_there_fails(void)
{
	errno = 0;
	CHECK(cpu_pin(-1) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(cpu_pin(CPU_SETSIZE) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(cpu_pin(CPU_MAX_INDEX) == -1 && errno == EINVAL);
}

int main(void)
{
	RUN(allowed_cpus_match_the_affinity_mask);
	RUN(pin_leaves_only_that_cpu);
	RUN(pin_to_a_cpu_that_is_not_there_fails);
	return CHECK_EXIT();
}
