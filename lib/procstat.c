#include <unistd.h>

#include "procstat.h"
#include "timing.h"

/* Ticks in ns, divided first: ticks x 10^9 would pass 2^64 after 1.8e10 ticks. */
static uint64_t ticks_ns(uint64_t ticks, long ticks_per_sec)
{
	return ticks / ticks_per_sec * NSEC_PER_SEC + ticks % ticks_per_sec * NSEC_PER_SEC / ticks_per_sec;
}

int procstat_parse(FILE *f, const int *cpus, int n_cpus, long ticks_per_sec,
			 uint64_t *busy_ns, uint64_t *all_ns)
{
	unsigned long long v[8];
	uint64_t busy = 0, all = 0;
	char line[512];
	int cpu, at;

	if (ticks_per_sec <= 0)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* "cpuN", N a number right after "cpu": not the "cpu " line of all CPUs. */
		if (sscanf(line, "cpu%n%d %llu %llu %llu %llu %llu %llu %llu %llu", &at, &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 ||
		    line[at] < '0' || line[at] > '9')
			continue;
		for (int i = 0; i < n_cpus; i++) {
			if (cpus[i] != cpu)
				continue;
			busy += v[0] + v[1] + v[2] + v[5] + v[6];
			all += v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		}
	}
	*busy_ns = ticks_ns(busy, ticks_per_sec);
	*all_ns = ticks_ns(all, ticks_per_sec);
	return 0;
}

void procstat_read(const int *cpus, int n_cpus, uint64_t *busy_ns, uint64_t *all_ns)
{
	FILE *f = fopen("/proc/stat", "r");

	*busy_ns = *all_ns = 0;
	if (!f)
		return;
	if (procstat_parse(f, cpus, n_cpus, sysconf(_SC_CLK_TCK), busy_ns, all_ns) < 0)
		*busy_ns = *all_ns = 0;
	fclose(f);
}
