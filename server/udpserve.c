/*
 * zcs -u: one process takes every sender's datagrams from the bound socket
 * (rx/'s datagram modes), tells the senders apart by their address and
 * stream id, counts each one's datagrams (lib/dgram), and prints a sender's
 * summary when its END comes, answering it with an ACK, or when it has sent
 * nothing for -W.
 *
 * The meter (-c) is the host's, sampled here into its ring; each sender
 * has a window of its own, from its first datagram to its end, and one that
 * another sender was in says so, as a TCP connection's does.
 */
#include <err.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/dgram.h"
#include "lib/limit.h"
#include "lib/link.h"
#include "lib/meter.h"
#include "lib/system.h"
#include "lib/timing.h"
#include "lib/units.h"
#include "lib/window.h"
#include "server.h"

/* How often the loop looks up from the socket: -W's idle senders, the meter's samples. */
#define LOOK_UP_MS 100

/*
 * The receive buffer asked for without -i. With the kernel's 208 KiB, bursts
 * of datagrams overflowed it: uring-zc lost 10% at 64 MiB/s over loopback
 * (each of its datagrams takes 2.7 times the buffer a copied one takes),
 * sendmsg 1-5% at 256 MiB/s; with 4 MiB, none of them lost any.
 */
#define DEFAULT_RCVBUF (4L << 20)

/*
 * What zcs counts of one sender (zcc -u's stream, whose sending end is tx/'s
 * struct sender): an address and a stream id, from its first datagram to its
 * end.
 */
struct udp_peer {
	int active;		/* its datagrams are being counted */
	int ended;		/* its END came: it is done, and its END is answered again */
	struct sockaddr_storage from;
	socklen_t from_len;
	uint32_t stream;
	char peer[NI_MAXHOST + NI_MAXSERV + 8];
	uint64_t first_ns, last_ns, end_ns;
	uint64_t tick_ns, tick_bytes;	/* the -t interval's start, and the bytes counted then */
	int tagged;		/* its interval lines name it: another sender was active at one */
	struct intervals intervals;	/* -J */
	uint64_t sent_datagrams, sent_bytes;	/* the END's counts */
	int idle_closed;
	struct window win;	/* from its first datagram: the CPU time, and once proven the link (-c, -J) */
	int instrumented;	/* proven: its window and link counts taken (instrument) */
	int metered;		/* -c: span is its window */
	uint64_t metered_from;	/* the bytes counted before it */
	struct hostmeter_span span;
	int shared;		/* another sender was in its tare or its window */
	struct dgram_count count;
};

struct server {
	const struct settings *s;
	struct hostmeter *hm;
	int fd;
	struct udp_peer *senders;	/* -L of them */
	struct udp_peer *last;	/* the last one a datagram came from: the next likely does too */
	/*
	 * The senders by address and stream id, so that a datagram finds its
	 * own in time that does not grow with -L: an open-addressed table of
	 * index + 1 (0: empty) of the active and ended senders, twice -L or more.
	 */
	long *index;
	size_t index_mask;
	long *free_places, n_free;	/* places never used, or given up by a sender gone quiet */
	long *ended, ended_head, n_ended;	/* ended senders' places, the longest ago first */
	uint64_t junk;		/* datagrams that were not zc's */
	uint64_t turned_away;	/* datagrams of senders past -L */
	uint64_t stray_ends;	/* ENDs of senders not counted: not answered */
	uint64_t gave_way;	/* unproven senders that gave their place to a newcomer */
	long rcvbuf;		/* what the socket was granted */
};

static volatile sig_atomic_t tick;

/*
 * A sender proves itself with its first datagrams: with fewer distinct ones
 * than this, it gives its place to a newcomer when every -L place is taken
 * (the one quiet longest first), so that a burst of one datagram for each of
 * -L stream ids cannot hold zcs for -W. An honest sender sends them in well
 * under a millisecond at -u's default pace; one that sends this many for each
 * id still keeps its places until -W.
 */
#define PROVEN_DATAGRAMS 8

static int same_address(const struct udp_peer *d, const struct sockaddr *from, socklen_t len)
{
	return d->from_len == len && memcmp(&d->from, from, len) == 0;
}

static int is_it(const struct udp_peer *d, const struct sockaddr *from, socklen_t len,
		 uint32_t stream)
{
	return (d->active || d->ended) && d->stream == stream && same_address(d, from, len);
}

/* FNV-1a of the address and the stream id: where a sender's probe starts. */
static size_t bucket_of(const struct server *sv, const struct sockaddr *from, socklen_t len,
		      uint32_t stream)
{
	const unsigned char *p = (const unsigned char *)from;
	uint64_t h = 14695981039346656037ULL;

	for (socklen_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	for (int i = 0; i < 4; i++)
		h = (h ^ (stream >> (8 * i) & 0xff)) * 1099511628211ULL;
	return h & sv->index_mask;
}

static struct udp_peer *find_sender(struct server *sv, const struct sockaddr *from, socklen_t len,
				  uint32_t stream)
{
	if (sv->last && is_it(sv->last, from, len, stream))
		return sv->last;
	for (size_t i = bucket_of(sv, from, len, stream); sv->index[i]; i = (i + 1) & sv->index_mask) {
		struct udp_peer *d = &sv->senders[sv->index[i] - 1];

		if (is_it(d, from, len, stream))
			return sv->last = d;
	}
	return NULL;
}

static void index_add(struct server *sv, const struct udp_peer *d)
{
	size_t i = bucket_of(sv, (const struct sockaddr *)&d->from, d->from_len, d->stream);

	while (sv->index[i])
		i = (i + 1) & sv->index_mask;
	sv->index[i] = d - sv->senders + 1;
}

/* Take d out, moving back the entries after it that probed past its bucket (no tombstones). */
static void index_remove(struct server *sv, const struct udp_peer *d)
{
	size_t i = bucket_of(sv, (const struct sockaddr *)&d->from, d->from_len, d->stream), j;

	while (sv->index[i] && sv->index[i] != d - sv->senders + 1)
		i = (i + 1) & sv->index_mask;
	if (!sv->index[i])
		return;
	sv->index[i] = 0;
	for (j = (i + 1) & sv->index_mask; sv->index[j]; j = (j + 1) & sv->index_mask) {
		const struct udp_peer *e = &sv->senders[sv->index[j] - 1];
		size_t home = bucket_of(sv, (const struct sockaddr *)&e->from, e->from_len, e->stream);

		/* e may move to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			sv->index[i] = sv->index[j];
			sv->index[j] = 0;
			i = j;
		}
	}
	if (sv->last == d)
		sv->last = NULL;
}

/*
 * An unproven sender, quiet longest, gives its place to a newcomer: counted,
 * its meter's window closed, no summary (said once on stderr). NULL if every
 * active sender has proven itself.
 */
static struct udp_peer *give_way(struct server *sv)
{
	struct udp_peer *quiet = NULL;
	struct soak_figures fig;

	for (long i = 0; i < sv->s->max_conns; i++) {
		struct udp_peer *d = &sv->senders[i];

		if (d->active && d->count.distinct < PROVEN_DATAGRAMS && (!quiet || d->last_ns < quiet->last_ns))
			quiet = d;
	}
	if (!quiet)
		return NULL;
	if (!sv->gave_way++)
		warnx("%s: a sender of fewer than %d datagrams gave its place to a new one, every -L "
		      "place being taken (said once; -d says each)", quiet->peer, PROVEN_DATAGRAMS);
	else if (sv->s->debug)
		warnx("%s: stream %08x gave its place to a new sender", quiet->peer, quiet->stream);
	if (quiet->metered)
		hostmeter_span_close(sv->hm, &quiet->span, quiet->peer,
				     quiet->count.bytes - quiet->metered_from, &fig, &quiet->shared);
	quiet->active = quiet->metered = 0;
	index_remove(sv, quiet);
	return quiet;
}

/*
 * A place for a new sender: a free one, the one that ended longest ago (it
 * no longer gets its END answered), or an unproven one's (give_way); NULL
 * when -L proven senders are active.
 */
static struct udp_peer *free_place(struct server *sv)
{
	struct udp_peer *d;

	if (sv->n_free > 0)
		return &sv->senders[sv->free_places[--sv->n_free]];
	if (sv->n_ended == 0)
		return give_way(sv);
	d = &sv->senders[sv->ended[sv->ended_head]];
	sv->ended_head = (sv->ended_head + 1) % sv->s->max_conns;
	sv->n_ended--;
	index_remove(sv, d);
	return d;
}

/* A sender's place once its datagrams are no longer counted: ended (its END kept answered), or free. */
static void give_up_place(struct server *sv, struct udp_peer *d)
{
	long at = d - sv->senders;

	if (d->ended) {
		sv->ended[(sv->ended_head + sv->n_ended++) % sv->s->max_conns] = at;
		return;
	}
	index_remove(sv, d);
	sv->free_places[sv->n_free++] = at;
}

/* The interface a reply to `to` would leave by: a socket connected there, which sends nothing. */
static int find_link_to(struct link *l, const struct sockaddr *to, socklen_t len)
{
	int fd = socket(to->sa_family, SOCK_DGRAM, 0), rc = -1;

	if (fd < 0)
		return -1;
	if (connect(fd, to, len) == 0)
		rc = link_find(l, fd);
	close(fd);
	return rc;
}

static struct udp_peer *start_sender(struct server *sv, struct udp_peer *d,
				   const struct rx_datagram *dg, uint32_t stream)
{
	const struct settings *s = sv->s;
	uint64_t now = timing_now_ns();

	free(d->intervals.list);
	*d = (struct udp_peer){ .active = 1, .from_len = dg->from_len, .stream = stream,
			      .first_ns = now, .last_ns = now, .tick_ns = now };
	memcpy(&d->from, dg->from, dg->from_len);
	net_addr_text(dg->from, dg->from_len, d->peer, sizeof(d->peer));
	dgram_count_init(&d->count);
	window_open(&d->win, &(struct window_counts){ .who = RUSAGE_SELF });
	if (s->debug)
		fprintf(stderr, "zcs: datagrams from %s, stream %08x\n", d->peer, stream);
	index_add(sv, d);
	return d;
}

/*
 * -c's window and the link's counts (-c, -J), for a sender once it has
 * proven itself: a burst of spoofed senders of one datagram each cost some
 * 40 system calls and 350 us a sender with them, and honest senders lost
 * half their datagrams behind it. Its window begins here; a sender that
 * ends unproven has none.
 */
static void instrument(struct server *sv, struct udp_peer *d)
{
	struct link link;

	d->instrumented = 1;
	if (sv->hm) {
		d->shared = hostmeter_span_open(sv->hm, &d->span);
		d->metered = 1;
		d->metered_from = d->count.bytes;
	}
	if ((sv->hm || sv->s->json) &&
	    find_link_to(&link, (const struct sockaddr *)&d->from, d->from_len) == 0)
		window_add_link(&d->win, &link);
}

/* What a sender's summary says beyond its counts, worked out once at its end. */
struct result {
	uint64_t ns;		/* from its first datagram to its end */
	uint64_t lost;		/* of the END's count, or without one below the highest seen */
	uint64_t expected;	/* the datagrams that should have come: distinct and lost */
	struct window_figures win;	/* the process's CPU time over the same time, and the link's counts */
};

static void sender_result(struct udp_peer *d, struct result *res)
{
	window_close(&d->win, 1, -1, &res->win);
	res->ns = d->end_ns - d->first_ns;
	res->lost = dgram_count_lost(&d->count, d->ended, d->sent_datagrams);
	res->expected = d->count.distinct + res->lost;
}

static void print_summary(const struct server *sv, const struct udp_peer *d,
			  const struct soak_figures *fig, const struct result *res)
{
	const struct dgram_count *c = &d->count;
	char rate[48];

	printf("received %llu bytes in %.3f s, %s, %llu datagrams, %llu lost, "
	       "%llu out of order, %llu duplicated", (unsigned long long)c->bytes,
	       timing_secs(res->ns), units_rate(rate, sizeof(rate), c->bytes, res->ns, sv->s->unit),
	       (unsigned long long)c->datagrams, (unsigned long long)res->lost,
	       (unsigned long long)c->out_of_order, (unsigned long long)c->duplicated);
	if (d->idle_closed)
		printf(", incomplete: no end after %ld s with nothing received (-W)",
		       sv->s->idle_secs);
	if (fig) {
		meter_print(stdout, fig);
		if (d->shared)
			printf(", shared with another sender");
	}
	window_print_cpu(stdout, &res->win);
	if (fig)
		window_print_link(stdout, &res->win);
	printf("\n");
}

static void print_summary_json(const struct server *sv, const struct udp_peer *d,
			       const struct soak_figures *fig, const struct result *res,
			       const struct limit *limit)
{
	const struct settings *s = sv->s;
	const struct dgram_count *c = &d->count;
	struct json j;

	json_begin(&j, stdout);
	json_string(&j, "program", "zcs");
	json_host(&j);
	system_json(&j);
	json_string(&j, "peer", d->peer);
	json_uint(&j, "stream", d->stream);
	json_object(&j, "settings");
	json_string(&j, "protocol", "udp");
	json_string(&j, "mode", s->arms[0]->name);
	json_int(&j, "report_secs", s->report_secs);
	if (s->cpu >= 0)
		json_int(&j, "cpu", s->cpu);
	else
		json_null(&j, "cpu");
	json_int(&j, "rcvbuf", sv->rcvbuf);
	json_int(&j, "sndbuf", s->sockopts.sndbuf_bytes);
	json_close(&j);
	json_intervals(&j, &d->intervals);
	json_null(&j, "tcp_info");
	json_object(&j, "result");
	json_uint(&j, "bytes", c->bytes);
	json_double(&j, "seconds", timing_secs(res->ns), 6);
	json_uint(&j, "kbytes_per_sec", timing_kbytes_per_sec(c->bytes, res->ns));
	json_bool(&j, "complete", d->ended);
	json_uint(&j, "datagrams", c->datagrams);
	json_uint(&j, "distinct", c->distinct);
	json_uint(&j, "lost", res->lost);
	json_uint(&j, "out_of_order", c->out_of_order);
	json_uint(&j, "duplicated", c->duplicated);
	json_double(&j, "loss_pct", dgram_loss_pct(res->expected, c->distinct), 3);
	json_bool(&j, "lossy", dgram_lossy(res->expected, c->distinct));
	if (d->ended) {
		json_uint(&j, "sent_datagrams", d->sent_datagrams);
		json_uint(&j, "sent_bytes", d->sent_bytes);
	} else {
		json_null(&j, "sent_datagrams");
		json_null(&j, "sent_bytes");
	}
	window_json_cpu(&j, &res->win);
	json_bool(&j, "idle_closed", d->idle_closed);
	json_close(&j);
	/* Every member of docs/zc-json.schema.json's, null where it does not apply. */
	window_json(&j, &res->win, fig ? &sv->hm->m : NULL, fig, d->shared);
	limit_json(&j, limit);
	json_null(&j, "turns");
	json_end(&j);
}

/* The sender's end: its END came (at end_ns), or -W ran out after its last datagram. */
static void end_sender(struct server *sv, struct udp_peer *d)
{
	const struct soak_figures *metered = NULL;
	struct soak_figures fig;
	struct result res;
	struct limit limit;

	if (d->metered) {
		metered = hostmeter_span_close(sv->hm, &d->span, d->peer,
					       d->count.bytes - d->metered_from, &fig, &d->shared);
		d->metered = 0;
	}
	sender_result(d, &res);
	/* One process serves every sender: its CPU time is the server's, not this sender's. */
	limit_find(&limit, "receiver", metered ? sv->hm->m.cpu : NULL,
		   metered ? meter_cpus(&sv->hm->m) : 0, 0, -1, NULL, res.ns, 0);
	if (sv->s->json)
		print_summary_json(sv, d, metered, &res, &limit);
	else
		print_summary(sv, d, metered, &res);
	if (metered && !sv->s->json) {
		meter_print_cpus(stdout, &sv->hm->m, metered);
		limit_print(stdout, &limit);
	}
	if (metered && sv->hm->m.note[0])
		warnx("%s: note: %s", d->peer, sv->hm->m.note);
	if (dgram_lossy(res.expected, d->count.distinct))
		warnx("%s: note: %.1f%% of the datagrams were lost: more than %.0f%%, and the load "
		      "is not comparable with that of runs that lost less", d->peer,
		      dgram_loss_pct(res.expected, d->count.distinct), DGRAM_LOSS_PCT);
	d->active = 0;
	give_up_place(sv, d);
}

/* The ACK of an ended sender's END: what was received. */
static void answer(struct server *sv, const struct udp_peer *d)
{
	struct dgram_header h = { .kind = DGRAM_ACK, .stream = d->stream, .seq = d->count.distinct };
	unsigned char ack[DGRAM_END_BYTES];

	dgram_put_end(ack, &h, d->count.bytes);
	if (sendto(sv->fd, ack, sizeof(ack), 0, (const struct sockaddr *)&d->from, d->from_len) < 0 &&
	    sv->s->debug)
		warn("%s: sending the ACK", d->peer);
}

/* The peer a datagram came from, as the lines name it. */
static const char *dgram_peer(const struct rx_datagram *dg, char *buf, size_t len)
{
	net_addr_text(dg->from, dg->from_len, buf, len);
	return buf;
}

/* A datagram that is not zc's: counted, and said the first time. */
static void junk(struct server *sv, const struct rx_datagram *dg, const char *what)
{
	char peer[NI_MAXHOST + NI_MAXSERV + 8];

	if (sv->junk++ && !sv->s->debug)
		return;
	net_addr_text(dg->from, dg->from_len, peer, sizeof(peer));
	warnx("%s: %s (%zu bytes): ignored%s", peer, what, dg->wire_len,
	      sv->s->debug ? "" : ", and any more said only with -d");
}

/* Each datagram as a mode takes it. */
static void take(void *ctx, const struct rx_datagram *dg)
{
	struct server *sv = ctx;
	struct dgram_header h;
	uint64_t bytes = 0;
	struct udp_peer *d;
	char peer[NI_MAXHOST + NI_MAXSERV + 8];

	if (dgram_parse(dg->data, dg->len, &h, &bytes) < 0 || h.kind == DGRAM_ACK) {
		junk(sv, dg, "a datagram that is not a zc sender's");
		return;
	}
	d = find_sender(sv, dg->from, dg->from_len, h.stream);
	if (d && d->ended) {
		/* Its END again (the ACK was lost), or a datagram that came after the END. */
		if (h.kind == DGRAM_END)
			answer(sv, d);
		return;
	}
	if (!d && h.kind == DGRAM_END) {
		/*
		 * An END from a sender not counted (ended, and its place given to
		 * another since; or one whose datagrams never came): not a new
		 * sender of none, whose ACK of 0 would tell it all were lost.
		 */
		if (!sv->stray_ends++ || sv->s->debug)
			warnx("%s: an END of stream %08x, which no sender here is counting (its place "
			      "taken since it ended, or it sent nothing else): not answered%s",
			      dgram_peer(dg, peer, sizeof(peer)), h.stream,
			      sv->s->debug ? "" : ", and any more said only with -d");
		return;
	}
	if (!d) {
		d = free_place(sv);
		if (!d) {
			if (!sv->turned_away++)
				warnx("%ld senders at once (-L %ld): the datagrams of another are "
				      "ignored until one ends", sv->s->max_conns, sv->s->max_conns);
			return;
		}
		start_sender(sv, d, dg, h.stream);
		sv->last = d;
	}
	d->last_ns = timing_now_ns();
	if (h.kind == DGRAM_DATA) {
		dgram_count_add(&d->count, h.seq, dg->wire_len);
		if (!d->instrumented && d->count.distinct >= PROVEN_DATAGRAMS)
			instrument(sv, d);
		return;
	}
	d->ended = 1;
	d->end_ns = d->last_ns;
	d->sent_datagrams = h.seq;
	d->sent_bytes = bytes;
	end_sender(sv, d);
	answer(sv, d);
}

/* -t's intervals, and -W's senders that have gone quiet. */
static void look_up(struct server *sv, uint64_t now)
{
	int report = tick;
	long active = 0;

	tick = 0;
	for (long i = 0; report && i < sv->s->max_conns; i++)
		active += sv->senders[i].active;
	for (long i = 0; i < sv->s->max_conns; i++) {
		struct udp_peer *d = &sv->senders[i];

		if (!d->active)
			continue;
		if (report) {
			d->tagged |= active > 1;
			report_interval(sv->s, &d->intervals, d->tick_ns - d->first_ns,
					now - d->first_ns, d->count.bytes - d->tick_bytes,
					d->tagged ? d->peer : NULL, NULL);
			d->tick_ns = now;
			d->tick_bytes = d->count.bytes;
		}
		if (now - d->last_ns >= (uint64_t)sv->s->idle_secs * NSEC_PER_SEC) {
			d->idle_closed = 1;
			d->end_ns = d->last_ns;
			end_sender(sv, d);
		}
	}
}

void serve_datagrams(int fd, const struct settings *s, struct hostmeter *hm)
{
	struct server sv = { .s = s, .hm = hm, .fd = fd, .rcvbuf = s->sockopts.rcvbuf_bytes };
	struct timeval tv = { .tv_usec = LOOK_UP_MS * 1000 };
	struct receiver r;
	uint64_t last_look = timing_now_ns();

	sv.senders = calloc(s->max_conns, sizeof(*sv.senders));
	sv.free_places = calloc(s->max_conns, sizeof(*sv.free_places));
	sv.ended = calloc(s->max_conns, sizeof(*sv.ended));
	for (sv.index_mask = 1; sv.index_mask < 2 * (size_t)s->max_conns; sv.index_mask <<= 1)
		;
	sv.index = calloc(sv.index_mask, sizeof(*sv.index));
	sv.index_mask--;
	if (!sv.senders || !sv.free_places || !sv.ended || !sv.index)
		err(1, "calloc");
	/* The first place first, as the senders come. */
	for (long i = 0; i < s->max_conns; i++)
		sv.free_places[sv.n_free++] = s->max_conns - 1 - i;
	if (!s->sockopts.rcvbuf_bytes) {
		long got = net_ask_rcvbuf(fd, DEFAULT_RCVBUF);

		sv.rcvbuf = got;
		if (got < DEFAULT_RCVBUF)
			warnx("-u: a receive buffer of %ld bytes asked, %ld granted (net.core.rmem_max): "
			      "fast senders may lose datagrams here (-i sets the size)",
			      DEFAULT_RCVBUF, got);
		else if (s->debug)
			fprintf(stderr, "zcs: -u: a receive buffer of %ld bytes\n", got);
	}
	/* A receive that waits no longer than this, so that the loop looks up now and then. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		err(1, "setsockopt SO_RCVTIMEO");
	rx_init(&r, fd, s->arms[0], 0, "", s->debug);
	r.deliver = take;
	r.ctx = &sv;
	rx_take_buffers(&r);
	if (s->debug)
		fprintf(stderr, "zcs: receive mode %s, datagrams\n", s->arms[0]->name);
	timing_tick_start(s->report_secs * 1000, &tick);
	for (;;) {
		uint64_t now;

		if (s->arms[0]->receive(&r) < 0 && errno != EINTR && errno != EAGAIN &&
		    errno != EWOULDBLOCK && errno != ECONNREFUSED)
			err(1, "-m %s: receiving", s->arms[0]->name);
		now = timing_now_ns();
		if (tick || now - last_look >= LOOK_UP_MS * 1000000ULL) {
			if (hm)
				hostmeter_sample(hm);
			look_up(&sv, now);
			last_look = now;
		}
	}
}
