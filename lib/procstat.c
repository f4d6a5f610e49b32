#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "procstat.h"
#include "timing.h"

/* Ticks in ns, divided first: ticks x 10^9 would pass 2^64 after 1.8e10 ticks. */
static uint64_t ticks_ns(uint64_t ticks, long ticks_per_sec)
{
	return ticks / ticks_per_sec * NSEC_PER_SEC + ticks % ticks_per_sec * NSEC_PER_SEC / ticks_per_sec;
}

uint64_t procstat_busy(const struct procstat_cpu *c)
{
	return c->user + c->nice + c->system + c->irq + c->softirq;
}

uint64_t procstat_all(const struct procstat_cpu *c)
{
	return procstat_busy(c) + c->idle + c->iowait + c->steal;
}

int procstat_parse(FILE *f, const int *cpus, int n_cpus, long ticks_per_sec,
		   struct procstat_cpu *each, uint64_t *busy_ns, uint64_t *all_ns)
{
	/* Each CPU's place in cpus[], plus one (0: not asked for), so that a line is found at once. */
	static int place[CPU_SETSIZE];
	unsigned long long v[8];
	uint64_t busy = 0, all = 0;
	char line[512];
	int cpu, at;

	if (ticks_per_sec <= 0)
		return -1;
	memset(place, 0, sizeof(place));
	for (int i = 0; i < n_cpus; i++) {
		if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
			place[cpus[i]] = i + 1;
		if (each)
			each[i] = (struct procstat_cpu){ 0 };
	}
	while (fgets(line, sizeof(line), f)) {
		struct procstat_cpu c;

		/* "cpuN", N a number right after "cpu": not the "cpu " line of all CPUs. */
		if (sscanf(line, "cpu%n%d %llu %llu %llu %llu %llu %llu %llu %llu", &at, &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 ||
		    line[at] < '0' || line[at] > '9' || cpu < 0 || cpu >= CPU_SETSIZE || !place[cpu])
			continue;
		c = (struct procstat_cpu){
			.user = ticks_ns(v[0], ticks_per_sec), .nice = ticks_ns(v[1], ticks_per_sec),
			.system = ticks_ns(v[2], ticks_per_sec), .idle = ticks_ns(v[3], ticks_per_sec),
			.iowait = ticks_ns(v[4], ticks_per_sec), .irq = ticks_ns(v[5], ticks_per_sec),
			.softirq = ticks_ns(v[6], ticks_per_sec), .steal = ticks_ns(v[7], ticks_per_sec),
		};
		if (each)
			each[place[cpu] - 1] = c;
		busy += procstat_busy(&c);
		all += procstat_all(&c);
	}
	*busy_ns = busy;
	*all_ns = all;
	return 0;
}

void procstat_read(const int *cpus, int n_cpus, struct procstat_cpu *each, uint64_t *busy_ns,
		   uint64_t *all_ns)
{
	FILE *f = fopen("/proc/stat", "r");

	*busy_ns = *all_ns = 0;
	if (each)
		memset(each, 0, n_cpus * sizeof(*each));
	if (!f)
		return;
	if (procstat_parse(f, cpus, n_cpus, sysconf(_SC_CLK_TCK), each, busy_ns, all_ns) < 0)
		*busy_ns = *all_ns = 0;
	fclose(f);
}
