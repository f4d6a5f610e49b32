/*
 * link: the interface a connection goes through, and what it counted over a
 * window: packets and bytes received and sent (/sys/class/net/IF/statistics,
 * where lo and veth count a super-packet, GSO's or GRO's, as one), and the
 * interrupts of the device behind it (its PCI function's msi_irqs, or its
 * one irq, counted in /proc/interrupts). An interface with no device of its
 * own (lo, veth) has no interrupts: its receive work runs as the NET_RX
 * softirq, so the softirqs NET_RX and NET_TX on every CPU
 * (/proc/softirqs) are counted instead, and said to be.
 */
#ifndef ZC_LINK_H
#define ZC_LINK_H

#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "json.h"

#define LINK_MAX_IRQS 64

struct link {
	char ifname[IF_NAMESIZE];
	int n_irqs;			/* the device's interrupts; 0: softirqs are counted */
	unsigned irqs[LINK_MAX_IRQS];
};

struct link_sample {
	uint64_t ns;			/* CLOCK_MONOTONIC */
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes;
	uint64_t interrupts;		/* the device's, or NET_RX + NET_TX softirqs */
	int ok;				/* every count was read */
};

/* What a window counted, and per second. */
struct link_figures {
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, interrupts;
	double rx_pps, tx_pps, ints_per_sec;
};

/*
 * The interface that holds the socket's local address (getifaddrs), and the
 * device's interrupts. 0, or -1 when no interface holds it (l->ifname empty).
 */
int link_find(struct link *l, int fd);
/* The interface of that name, and the device's interrupts. */
void link_open(struct link *l, const char *ifname);
/* The interface that holds this address (an IPv4-mapped IPv6 one as IPv4): 0 or -1. */
int link_by_address(const struct sockaddr *addr, char ifname[IF_NAMESIZE]);

/* Read the counters now; s->ok is 0 if one could not be read. */
void link_take(const struct link *l, struct link_sample *s);
/* The counts between two samples, and their rates. */
void link_figures(const struct link_sample *a, const struct link_sample *b, struct link_figures *f);
/*
 * The end of a window that began at start: read the counters now, and the
 * figures since start into f. 1 if every count at both ends was read, else 0.
 */
int link_end(const struct link *l, const struct link_sample *start, struct link_figures *f);

/*
 * The figures on a summary line:
 * ", IF: rx R pps, tx T pps, I ints/s" for a device with interrupts, and
 * ", IF: rx R pps, tx T pps, 0 ints/s (softirqs S/s)" for one without.
 */
void link_print(FILE *out, const struct link *l, const struct link_figures *f);
/*
 * -J's "link" object: interface, rx_packets, tx_packets, rx_pps, tx_pps,
 * rx_bytes, tx_bytes, rx_bytes_per_packet and tx_bytes_per_packet (null with
 * no packets), interrupts, ints_per_sec and counted ("irqs" or "softirqs");
 * null without figures (f NULL: the link was not counted).
 */
void link_json(struct json *j, const struct link *l, const struct link_figures *f);

/* The IRQs' counts summed over every CPU, from /proc/interrupts text; -1 if one is missing. */
int link_parse_interrupts(FILE *f, const unsigned *irqs, int n_irqs, uint64_t *total);
/* NET_RX + NET_TX over every CPU, from /proc/softirqs text; -1 if missing. */
int link_parse_softirqs(FILE *f, uint64_t *total);

#endif
