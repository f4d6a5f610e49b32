#include <dirent.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "timing.h"

/* An IPv4-mapped IPv6 address (a dual-stack socket's IPv4 peer) as the IPv4 one. */
static void unmap_v4(const struct sockaddr *in, struct sockaddr_in *out, const struct sockaddr **use)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)in;

	*use = in;
	if (in->sa_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	memcpy(&out->sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	*use = (const struct sockaddr *)out;
}

static int same_address(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return 0;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
	return 0;
}

int link_by_address(const struct sockaddr *addr, char ifname[IF_NAMESIZE])
{
	struct ifaddrs *all, *ifa;
	struct sockaddr_in v4;
	const struct sockaddr *want;
	int rc = -1;

	ifname[0] = '\0';
	unmap_v4(addr, &v4, &want);
	if (getifaddrs(&all) < 0)
		return -1;
	for (ifa = all; ifa; ifa = ifa->ifa_next)
		if (ifa->ifa_addr && same_address(ifa->ifa_addr, want)) {
			snprintf(ifname, IF_NAMESIZE, "%s", ifa->ifa_name);
			rc = 0;
			break;
		}
	freeifaddrs(all);
	return rc;
}

/* The IRQ numbers listed in a device's msi_irqs directory; 0 if it has none. */
static int read_msi_irqs(const char *dir, struct link *l)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/msi_irqs", dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && l->n_irqs < LINK_MAX_IRQS) {
		char *end;
		unsigned long irq = strtoul(e->d_name, &end, 10);

		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && *end == '\0')
			l->irqs[l->n_irqs++] = irq;
	}
	closedir(d);
	return l->n_irqs;
}

/*
 * The interrupts of the device behind the interface: its msi_irqs, or those of
 * its parent (a virtio device's PCI function), or its one legacy irq. A
 * virtual interface (lo, veth) has no device.
 */
static void find_irqs(struct link *l)
{
	char link[PATH_MAX], dev[PATH_MAX], path[PATH_MAX + 8];
	unsigned irq;
	FILE *f;

	l->n_irqs = 0;
	snprintf(link, sizeof(link), "/sys/class/net/%s/device", l->ifname);
	if (!realpath(link, dev))
		return;
	if (read_msi_irqs(dev, l))
		return;
	snprintf(path, sizeof(path), "%s/..", dev);
	if (read_msi_irqs(path, l))
		return;
	snprintf(path, sizeof(path), "%s/irq", dev);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%u", &irq) == 1 && irq > 0)
		l->irqs[l->n_irqs++] = irq;
	fclose(f);
}

int link_find(struct link *l, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	memset(l, 0, sizeof(*l));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
	    link_by_address((struct sockaddr *)&ss, l->ifname) < 0)
		return -1;
	find_irqs(l);
	return 0;
}

void link_open(struct link *l, const char *ifname)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->ifname, sizeof(l->ifname), "%s", ifname);
	find_irqs(l);
}

static int read_stat(const char *ifname, const char *name, uint64_t *v)
{
	char path[128];
	unsigned long long x;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	*v = x;
	return ok ? 0 : -1;
}

/* How many CPU columns a /proc/interrupts or /proc/softirqs header has. */
static int count_cpus(const char *header)
{
	int n = 0;

	for (const char *p = header; (p = strstr(p, "CPU")); p += 3)
		n++;
	return n;
}

/* The sum of up to n_cpus counts at the start of text. */
static uint64_t sum_counts(const char *text, int n_cpus)
{
	uint64_t sum = 0;
	char *end;

	for (int i = 0; i < n_cpus; i++) {
		unsigned long long v = strtoull(text, &end, 10);

		if (end == text)
			break;
		sum += v;
		text = end;
	}
	return sum;
}

/*
 * The rows of a /proc table (a header of CPU columns, then a row a source)
 * that `counts` picks, each one's counts summed over every CPU into total.
 * counts returns where a picked row's counts begin, or NULL. Returns how many
 * rows were picked, or -1 without a header.
 */
static int sum_rows(FILE *f, const char *(*counts)(const char *row, const void *arg),
		    const void *arg, uint64_t *total)
{
	char line[4096];
	int n_cpus, picked = 0;

	*total = 0;
	if (!fgets(line, sizeof(line), f))
		return -1;
	n_cpus = count_cpus(line);
	while (fgets(line, sizeof(line), f)) {
		const char *p = counts(line, arg);

		if (p) {
			*total += sum_counts(p, n_cpus);
			picked++;
		}
	}
	return picked;
}

struct irq_set {
	const unsigned *irqs;
	int n;
};

/* "  38:  counts...": a row of one of the IRQs. */
static const char *irq_row(const char *row, const void *arg)
{
	const struct irq_set *set = arg;
	char *end;
	unsigned long irq = strtoul(row, &end, 10);

	if (end == row || *end != ':')
		return NULL;
	for (int i = 0; i < set->n; i++)
		if (set->irqs[i] == irq)
			return end + 1;
	return NULL;
}

/* "  NET_RX:  counts..." or NET_TX. */
static const char *net_softirq_row(const char *row, const void *arg)
{
	const char *p = row + strspn(row, " ");

	(void)arg;
	return strncmp(p, "NET_RX:", 7) == 0 || strncmp(p, "NET_TX:", 7) == 0 ? p + 7 : NULL;
}

int link_parse_interrupts(FILE *f, const unsigned *irqs, int n_irqs, uint64_t *total)
{
	struct irq_set set = { irqs, n_irqs };

	return sum_rows(f, irq_row, &set, total) == n_irqs ? 0 : -1;
}

int link_parse_softirqs(FILE *f, uint64_t *total)
{
	return sum_rows(f, net_softirq_row, NULL, total) == 2 ? 0 : -1;
}

void link_take(const struct link *l, struct link_sample *s)
{
	FILE *f = fopen(l->n_irqs ? "/proc/interrupts" : "/proc/softirqs", "r");
	int ok = f != NULL;

	s->ns = timing_now_ns();
	if (f) {
		ok = (l->n_irqs ? link_parse_interrupts(f, l->irqs, l->n_irqs, &s->interrupts)
				: link_parse_softirqs(f, &s->interrupts)) == 0;
		fclose(f);
	}
	s->ok = ok && read_stat(l->ifname, "rx_packets", &s->rx_packets) == 0 &&
		read_stat(l->ifname, "tx_packets", &s->tx_packets) == 0 &&
		read_stat(l->ifname, "rx_bytes", &s->rx_bytes) == 0 &&
		read_stat(l->ifname, "tx_bytes", &s->tx_bytes) == 0;
}

void link_figures(const struct link_sample *a, const struct link_sample *b, struct link_figures *f)
{
	double secs = (b->ns - a->ns) / 1e9;

	f->rx_packets = b->rx_packets - a->rx_packets;
	f->tx_packets = b->tx_packets - a->tx_packets;
	f->rx_bytes = b->rx_bytes - a->rx_bytes;
	f->tx_bytes = b->tx_bytes - a->tx_bytes;
	f->interrupts = b->interrupts - a->interrupts;
	f->rx_pps = secs > 0 ? f->rx_packets / secs : 0;
	f->tx_pps = secs > 0 ? f->tx_packets / secs : 0;
	f->ints_per_sec = secs > 0 ? f->interrupts / secs : 0;
}

int link_end(const struct link *l, const struct link_sample *start, struct link_figures *f)
{
	struct link_sample now;

	link_take(l, &now);
	link_figures(start, &now, f);
	return start->ok && now.ok;
}

void link_print(FILE *out, const struct link *l, const struct link_figures *f)
{
	fprintf(out, ", %s: rx %.0f pps, tx %.0f pps", l->ifname, f->rx_pps, f->tx_pps);
	if (l->n_irqs)
		fprintf(out, ", %.0f ints/s", f->ints_per_sec);
	else
		fprintf(out, ", 0 ints/s (softirqs %.0f/s)", f->ints_per_sec);
}

void link_json(struct json *j, const struct link *l, const struct link_figures *f)
{
	if (!f) {
		json_null(j, "link");
		return;
	}
	json_object(j, "link");
	json_string(j, "interface", l->ifname);
	json_uint(j, "rx_packets", f->rx_packets);
	json_uint(j, "tx_packets", f->tx_packets);
	json_double(j, "rx_pps", f->rx_pps, 0);
	json_double(j, "tx_pps", f->tx_pps, 0);
	json_uint(j, "rx_bytes", f->rx_bytes);
	json_uint(j, "tx_bytes", f->tx_bytes);
	json_ratio(j, "rx_bytes_per_packet", f->rx_bytes, f->rx_packets, 0);
	json_ratio(j, "tx_bytes_per_packet", f->tx_bytes, f->tx_packets, 0);
	json_uint(j, "interrupts", f->interrupts);
	json_double(j, "ints_per_sec", f->ints_per_sec, 0);
	json_string(j, "counted", l->n_irqs ? "irqs" : "softirqs");
	json_close(j);
}
