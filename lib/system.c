#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system.h"

#ifndef ZC_VERSION
#define ZC_VERSION "unknown"
#endif

const char *const system_sysctls[] = {
	"net.ipv4.tcp_autocorking", "net.ipv4.tcp_wmem", "net.ipv4.tcp_rmem",
	"net.core.optmem_max", "net.core.wmem_max", "net.core.rmem_max",
	"net.ipv4.tcp_congestion_control", NULL,
};

/* The first line of a file, without its newline and with runs of blanks made one space. */
static int first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c, blank = 0;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == ' ' || c == '\t') {
			blank = 1;
			continue;
		}
		if (blank && n > 0 && n + 1 < len)
			buf[n++] = ' ';
		blank = 0;
		if (n + 1 < len)
			buf[n++] = c;
	}
	buf[n] = '\0';
	fclose(f);
	return 0;
}

int system_sysctl_path(const char *proc_sys, const char *name, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s", proc_sys, name);

	for (char *p = path + strlen(proc_sys) + 1; n > 0 && (size_t)n < len && *p; p++)
		if (*p == '.')
			*p = '/';
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int system_sysctl(const char *name, char *buf, size_t len)
{
	char path[256];

	if (system_sysctl_path("/proc/sys", name, path, sizeof(path)) < 0)
		return -1;
	return first_line(path, buf, len);
}

/* /proc/cpuinfo's first "model name" (x86), or NULL. */
static const char *cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	const char *found = NULL;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		snprintf(buf, len, "%s", colon + 1 + (colon[1] == ' '));
		buf[strcspn(buf, "\n")] = '\0';
		found = buf;
	}
	fclose(f);
	return found;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

void system_json(struct json *j)
{
	static const char vulns[] = "/sys/devices/system/cpu/vulnerabilities";
	char buf[512], path[512];
	struct dirent **names;
	int n;

	json_object(j, "system");
	json_string(j, "zc_version", ZC_VERSION);
	json_string(j, "cpu_model", cpu_model(buf, sizeof(buf)));
	json_int(j, "cpus", sysconf(_SC_NPROCESSORS_ONLN));
	json_object(j, "sysctls");
	for (const char *const *s = system_sysctls; *s; s++)
		json_string(j, *s, system_sysctl(*s, buf, sizeof(buf)) == 0 ? buf : NULL);
	json_close(j);
	json_object(j, "mitigations");
	n = scandir(vulns, &names, NULL, by_name);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", vulns, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && first_line(path, buf, sizeof(buf)) == 0)
			json_string(j, names[i]->d_name, buf);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	json_close(j);
	json_close(j);
}
