/* netstat: the host's TCP ACK and corking counters, from /proc/net/netstat. */
#include <stdlib.h>
#include <string.h>

#include "netstat.h"

static const char *const names[NETSTAT_N] = {
	[NETSTAT_AUTOCORKING] = "TCPAutoCorking",
	[NETSTAT_DELAYED_ACKS] = "DelayedACKs",
	[NETSTAT_DELAYED_ACKS_LOCKED] = "DelayedACKLocked",
	[NETSTAT_PURE_ACKS] = "TCPPureAcks",
};

static const char *const json_names[NETSTAT_N] = {
	[NETSTAT_AUTOCORKING] = "autocorking",
	[NETSTAT_DELAYED_ACKS] = "delayed_acks",
	[NETSTAT_DELAYED_ACKS_LOCKED] = "delayed_acks_locked",
	[NETSTAT_PURE_ACKS] = "pure_acks",
};

/*
 * The file is pairs of lines, "TcpExt: NAME NAME ..." then "TcpExt: N N
 * ...": each counter of ours is the value in its name's place.
 */
void netstat_parse(FILE *f, struct netstat *n)
{
	char head[8192], vals[8192];
	int found = 0;

	memset(n, 0, sizeof(*n));
	while (fgets(head, sizeof(head), f) && fgets(vals, sizeof(vals), f)) {
		char *hs, *vs, *h, *v;

		if (strncmp(head, "TcpExt:", 7) != 0 || strncmp(vals, "TcpExt:", 7) != 0)
			continue;
		h = strtok_r(head + 7, " \n", &hs);
		v = strtok_r(vals + 7, " \n", &vs);
		for (; h && v; h = strtok_r(NULL, " \n", &hs), v = strtok_r(NULL, " \n", &vs))
			for (int i = 0; i < NETSTAT_N; i++)
				if (strcmp(h, names[i]) == 0) {
					n->v[i] = strtoull(v, NULL, 10);
					found |= 1 << i;
				}
	}
	n->ok = found == (1 << NETSTAT_N) - 1;
}

void netstat_read(struct netstat *n)
{
	FILE *f = fopen("/proc/net/netstat", "r");

	memset(n, 0, sizeof(*n));
	if (!f)
		return;
	netstat_parse(f, n);
	fclose(f);
}

void netstat_delta(const struct netstat *a, const struct netstat *b, struct netstat *d)
{
	d->ok = a->ok && b->ok;
	for (int i = 0; i < NETSTAT_N; i++)
		d->v[i] = d->ok ? b->v[i] - a->v[i] : 0;
}

void netstat_json(struct json *j, const struct netstat *d)
{
	if (!d->ok) {
		json_null(j, "netstat");
		return;
	}
	json_object(j, "netstat");
	for (int i = 0; i < NETSTAT_N; i++)
		json_uint(j, json_names[i], d->v[i]);
	json_close(j);
}

void netstat_print(FILE *out, const struct netstat *d)
{
	if (!d->ok) {
		fprintf(out, "host counters unread");
		return;
	}
	fprintf(out, "host: autocorked %llu, delayed ACKs %llu (%llu locked), pure ACKs received %llu",
		(unsigned long long)d->v[NETSTAT_AUTOCORKING],
		(unsigned long long)d->v[NETSTAT_DELAYED_ACKS],
		(unsigned long long)d->v[NETSTAT_DELAYED_ACKS_LOCKED],
		(unsigned long long)d->v[NETSTAT_PURE_ACKS]);
}
