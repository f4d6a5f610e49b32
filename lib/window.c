/* window: the CPU time, the link, the host's counters, TCP_INFO and the meter, over one window. */
#include <string.h>

#include "timing.h"
#include "window.h"

void window_open(struct window *w, const struct window_counts *counts)
{
	*w = (struct window){ .who = counts->who, .meter = counts->meter, .host = counts->host };
	if (counts->meter && meter_mark(counts->meter, METER_FIRST_BYTE) < 0)
		meter_die(counts->meter);
	if (counts->link)
		window_add_link(w, counts->link);
	if (counts->host)
		netstat_read(&w->host_at);
	getrusage(w->who, &w->ru_at);
}

void window_forked(struct window *w)
{
	memset(&w->ru_at, 0, sizeof(w->ru_at));
}

void window_add_link(struct window *w, const struct link *link)
{
	if (!link->ifname[0])
		return;
	w->link = *link;
	w->linked = 1;
	link_take(&w->link, &w->link_at);
}

void window_last_byte(struct window *w)
{
	if (w->meter)
		meter_mark(w->meter, METER_LAST_BYTE);
}

void window_close(struct window *w, int confirmed, int fd, struct window_figures *f)
{
	struct netstat host;
	struct rusage ru;

	*f = (struct window_figures){ .link = w->link };
	if (fd >= 0)
		tcpinfo_read(fd, &f->tcp);
	if (confirmed && w->meter)
		meter_mark(w->meter, METER_CLOSED);
	if (w->linked)
		f->linked = link_end(&w->link, &w->link_at, &f->link_fig);
	if (w->host) {
		netstat_read(&host);
		netstat_delta(&w->host_at, &host, &f->host);
	}
	getrusage(w->who, &ru);
	f->user_secs = timing_timeval_secs(ru.ru_utime) - timing_timeval_secs(w->ru_at.ru_utime);
	f->sys_secs = timing_timeval_secs(ru.ru_stime) - timing_timeval_secs(w->ru_at.ru_stime);
}

void window_print_cpu(FILE *out, const struct window_figures *f)
{
	fprintf(out, ", cpu %.2fu %.2fs", f->user_secs, f->sys_secs);
}

void window_json_cpu(struct json *j, const struct window_figures *f)
{
	json_double(j, "user_seconds", f->user_secs, 2);
	json_double(j, "system_seconds", f->sys_secs, 2);
}

void window_print_link(FILE *out, const struct window_figures *f)
{
	if (f->linked)
		link_print(out, &f->link, &f->link_fig);
}

void window_json(struct json *j, const struct window_figures *f, const struct meter *m,
		 const struct soak_figures *fig, int shared)
{
	meter_json(j, m, fig, shared);
	meter_json_cpus(j, m, fig);
	link_json(j, &f->link, f->linked ? &f->link_fig : NULL);
	netstat_json(j, &f->host);
}
