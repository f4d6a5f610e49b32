#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>

#include "tcpinfo.h"

/* The kernel's struct is as long as the kernel that filled it: a field is there when len covers it. */
#define HAS(len, field) ((len) >= offsetof(struct tcp_info, field) + sizeof(((struct tcp_info *)0)->field))

int tcpinfo_read(int fd, struct tcpinfo *ti)
{
	struct tcp_info k;
	socklen_t len = sizeof(k);

	memset(ti, 0, sizeof(*ti));
	memset(&k, 0, sizeof(k));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &k, &len) < 0 || !HAS(len, tcpi_total_retrans))
		return -1;
	ti->have = 1;
	ti->total_retrans = k.tcpi_total_retrans;
	ti->srtt_us = k.tcpi_rtt;
	ti->rttvar_us = k.tcpi_rttvar;
	ti->snd_cwnd = k.tcpi_snd_cwnd;
	ti->snd_mss = k.tcpi_snd_mss;
	if (HAS(len, tcpi_delivery_rate))
		ti->delivery_rate = k.tcpi_delivery_rate;
	ti->have_limits = HAS(len, tcpi_sndbuf_limited);
	if (ti->have_limits) {
		ti->busy_us = k.tcpi_busy_time;
		ti->rwnd_limited_us = k.tcpi_rwnd_limited;
		ti->sndbuf_limited_us = k.tcpi_sndbuf_limited;
	}
	ti->have_bytes_retrans = HAS(len, tcpi_bytes_retrans);
	if (ti->have_bytes_retrans)
		ti->bytes_retrans = k.tcpi_bytes_retrans;
	return 0;
}

static double share(const struct tcpinfo *ti, uint64_t us)
{
	return ti->have_limits && ti->busy_us ? 100.0 * us / ti->busy_us : -1;
}

double tcpinfo_rwnd_pct(const struct tcpinfo *ti)
{
	return share(ti, ti->rwnd_limited_us);
}

double tcpinfo_sndbuf_pct(const struct tcpinfo *ti)
{
	return share(ti, ti->sndbuf_limited_us);
}

/* A percent a share of the busy time, null where there is none (below 0). */
static void json_busy_pct(struct json *j, const char *key, double pct)
{
	if (pct < 0)
		json_null(j, key);
	else
		json_double(j, key, pct, 1);
}

void tcpinfo_json(struct json *j, const struct tcpinfo *ti)
{
	if (!ti->have) {
		json_null(j, "tcp_info");
		return;
	}
	json_object(j, "tcp_info");
	json_uint(j, "retrans_segments", ti->total_retrans);
	if (ti->have_bytes_retrans)
		json_uint(j, "retrans_bytes", ti->bytes_retrans);
	else
		json_null(j, "retrans_bytes");
	json_uint(j, "srtt_us", ti->srtt_us);
	json_uint(j, "rttvar_us", ti->rttvar_us);
	json_uint(j, "snd_cwnd", ti->snd_cwnd);
	json_uint(j, "snd_mss", ti->snd_mss);
	json_uint(j, "delivery_rate_bytes_per_sec", ti->delivery_rate);
	if (ti->have_limits) {
		json_uint(j, "busy_us", ti->busy_us);
		json_uint(j, "rwnd_limited_us", ti->rwnd_limited_us);
		json_uint(j, "sndbuf_limited_us", ti->sndbuf_limited_us);
	} else {
		json_null(j, "busy_us");
		json_null(j, "rwnd_limited_us");
		json_null(j, "sndbuf_limited_us");
	}
	json_busy_pct(j, "rwnd_limited_pct", tcpinfo_rwnd_pct(ti));
	json_busy_pct(j, "sndbuf_limited_pct", tcpinfo_sndbuf_pct(ti));
	json_close(j);
}

void tcpinfo_print(FILE *out, const char *prefix, const struct tcpinfo *ti)
{
	if (!ti->have) {
		fprintf(out, "%stcp_info: the kernel gave none\n", prefix);
		return;
	}
	fprintf(out, "%stcp_info: retrans %llu segments", prefix, (unsigned long long)ti->total_retrans);
	if (ti->have_bytes_retrans)
		fprintf(out, " %llu bytes", (unsigned long long)ti->bytes_retrans);
	fprintf(out, ", rtt %u us (var %u), cwnd %u x %u bytes, delivery %.1f MB/s (its last sample)", ti->srtt_us,
		ti->rttvar_us, ti->snd_cwnd, ti->snd_mss, ti->delivery_rate / 1e6);
	if (ti->have_limits && ti->busy_us)
		fprintf(out, ", busy %.3f s: rwnd-limited %.1f%%, sndbuf-limited %.1f%%\n",
			ti->busy_us / 1e6, tcpinfo_rwnd_pct(ti), tcpinfo_sndbuf_pct(ti));
	else if (ti->have_limits)
		fprintf(out, ", busy 0 s (counted in jiffies): no shares\n");
	else
		fprintf(out, ", busy and its limits missing (Linux 4.10 and later)\n");
}

const char *tcpinfo_held_back(const struct tcpinfo *ti, uint64_t run_ns, int paced, char *buf,
			      size_t len)
{
	double rwnd = tcpinfo_rwnd_pct(ti), sndbuf = tcpinfo_sndbuf_pct(ti);
	double busy = run_ns ? 100.0 * ti->busy_us * 1000 / run_ns : 0;

	if (!ti->have || !ti->have_limits || !ti->busy_us || !run_ns)
		return NULL;
	if (rwnd > TCPINFO_HELD_PCT && rwnd >= sndbuf)
		snprintf(buf, len, "the receiver's window (%.0f%% of the busy time): the receiver reads "
			 "slower than this sends, or its buffer is small (zcs -i)", rwnd);
	else if (sndbuf > TCPINFO_HELD_PCT)
		snprintf(buf, len, "the send buffer (%.0f%% of the busy time): a larger one (-o) may "
			 "go faster", sndbuf);
	else if (paced)
		snprintf(buf, len, "the pacing: it sent at the rate asked (-R)");
	else if (busy < TCPINFO_APP_PCT)
		snprintf(buf, len, "the sender itself: the socket had data to send %.0f%% of the time, "
			 "and waited for zcc (its CPU, its reads of the files) the rest", busy);
	else
		snprintf(buf, len, "the congestion window: the socket had data to send %.0f%% of the "
			 "time, and neither the window nor the send buffer limited it", busy > 100 ? 100 : busy);
	return buf;
}
