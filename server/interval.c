/* zcs: the -t intervals of a connection or of -u's sender, printed or kept for -J. */
#include <err.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/timing.h"
#include "lib/units.h"
#include "server.h"

void report_interval(const struct settings *s, struct intervals *iv, uint64_t from_ns,
		     uint64_t to_ns, uint64_t bytes, const char *tag, const struct tcpinfo *tcp)
{
	struct interval *more;
	char rate[48], prefix[NI_MAXHOST + NI_MAXSERV + 16];

	if (!s->json) {
		snprintf(prefix, sizeof(prefix), "%s%s", tag ? tag : "", tag ? ": " : "");
		printf("%s%s\n", prefix, units_rate(rate, sizeof(rate), bytes, to_ns - from_ns, s->unit));
		if (tcp && s->tcp_line)
			tcpinfo_print(stdout, prefix, tcp);
		return;
	}
	more = realloc(iv->list, (iv->n + 1) * sizeof(*more));
	if (!more)
		err(1, "realloc");
	iv->list = more;
	iv->list[iv->n++] = (struct interval){ .start_ns = from_ns, .end_ns = to_ns, .bytes = bytes,
					       .has_tcp = tcp != NULL };
	if (tcp)
		iv->list[iv->n - 1].tcp = *tcp;
}

void json_intervals(struct json *j, const struct intervals *iv)
{
	json_array(j, "intervals");
	for (size_t i = 0; i < iv->n; i++) {
		const struct interval *one = &iv->list[i];

		json_object(j, NULL);
		json_double(j, "start", timing_secs(one->start_ns), 6);
		json_double(j, "end", timing_secs(one->end_ns), 6);
		json_uint(j, "bytes", one->bytes);
		json_uint(j, "kbytes_per_sec",
			  timing_kbytes_per_sec(one->bytes, one->end_ns - one->start_ns));
		if (one->has_tcp)
			tcpinfo_json(j, &one->tcp);
		json_close(j);
	}
	json_close(j);
}
