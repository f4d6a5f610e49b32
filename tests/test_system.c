/* What a run ran on: the sysctls as /proc/sys gives them, and -J's "system" object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/system.h"
#include "check.h"

static void a_sysctl_is_read_with_its_blanks_made_one_space(void)
{
	char buf[256], want[256];
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_wmem", "r");
	unsigned a, b, c;

	if (!f)
		SKIP("no /proc/sys/net/ipv4/tcp_wmem here");
	CHECK(fscanf(f, "%u %u %u", &a, &b, &c) == 3);
	fclose(f);
	snprintf(want, sizeof(want), "%u %u %u", a, b, c);
	CHECK(system_sysctl("net.ipv4.tcp_wmem", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, want);
	CHECK(system_sysctl("net.ipv4.no_such_sysctl", buf, sizeof(buf)) == -1);
}

static void the_system_object_names_every_sysctl_and_the_cpus(void)
{
	char *text = NULL, want[64];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct json j;

	json_begin(&j, out);
	system_json(&j);
	json_end(&j);
	fclose(out);
	CHECK(strncmp(text, "{\"system\":{\"zc_version\":\"", 25) == 0);
	snprintf(want, sizeof(want), "\"cpus\":%ld,", sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(strstr(text, want) != NULL);
	for (const char *const *s = system_sysctls; *s; s++) {
		snprintf(want, sizeof(want), "\"%s\":", *s);
		CHECK(strstr(text, want) != NULL);
	}
	CHECK(strstr(text, "\"mitigations\":{") != NULL);
	free(text);
}

int main(void)
{
	RUN(a_sysctl_is_read_with_its_blanks_made_one_space);
	RUN(the_system_object_names_every_sysctl_and_the_cpus);
	return CHECK_EXIT();
}
