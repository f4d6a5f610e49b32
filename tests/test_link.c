/* The link's counters: /proc/interrupts and /proc/softirqs parsed, the interface of an address found. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../lib/link.h"
#include "check.h"

static FILE *text(const char *s)
{
	return fmemopen((void *)s, strlen(s), "r");
}

static const char interrupts[] =
	"           CPU0       CPU1       \n"
	" 26:          0         15  IO-APIC   4-edge      ttyS0\n"
	" 37:          0          1 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n"
	" 38:         20        809 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
	" 39:        592          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"LOC:   12747147   30625215   Local timer interrupts\n"
	"ERR:          0\n";

static void the_device_irqs_are_summed_over_every_cpu(void)
{
	unsigned irqs[] = { 37, 38, 39 };
	uint64_t total = 0;
	FILE *f = text(interrupts);

	CHECK(link_parse_interrupts(f, irqs, 3, &total) == 0);
	CHECK_EQ_U64(total, 1 + 20 + 809 + 592);
	fclose(f);
}

static void an_irq_missing_from_the_file_is_an_error(void)
{
	unsigned irqs[] = { 38, 40 };
	uint64_t total;
	FILE *f = text(interrupts);

	CHECK(link_parse_interrupts(f, irqs, 2, &total) == -1);
	fclose(f);
}

static void the_counts_stop_at_the_cpu_columns(void)
{
	/* "4-edge" after the counts must not be read as a third CPU's count. */
	unsigned irqs[] = { 26 };
	uint64_t total = 0;
	FILE *f = text(interrupts);

	CHECK(link_parse_interrupts(f, irqs, 1, &total) == 0);
	CHECK_EQ_U64(total, 15);
	fclose(f);
}

static void net_rx_and_net_tx_softirqs_are_summed(void)
{
	static const char softirqs[] = "                    CPU0       CPU1       CPU2\n"
				       "          HI:          0          0          0\n"
				       "       TIMER:     705694     866381          3\n"
				       "      NET_TX:         85         79          1\n"
				       "      NET_RX:   47735339   86466184          2\n"
				       "       BLOCK:     170215     163011          0\n";
	uint64_t total = 0;
	FILE *f = text(softirqs);

	CHECK(link_parse_softirqs(f, &total) == 0);
	CHECK_EQ_U64(total, 85 + 79 + 1 + 47735339ULL + 86466184ULL + 2);
	fclose(f);
	f = text("   CPU0\n  TIMER:   5\n");
	CHECK(link_parse_softirqs(f, &total) == -1);
	fclose(f);
}

static void loopback_addresses_are_on_lo_even_ipv4_mapped(void)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };
	char name[IF_NAMESIZE];

	inet_pton(AF_INET, "127.0.0.1", &v4.sin_addr);
	CHECK(link_by_address((struct sockaddr *)&v4, name) == 0);
	CHECK_STR(name, "lo");
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &v6.sin6_addr);
	CHECK(link_by_address((struct sockaddr *)&v6, name) == 0);
	CHECK_STR(name, "lo");
	inet_pton(AF_INET, "192.0.2.77", &v4.sin_addr);
	CHECK(link_by_address((struct sockaddr *)&v4, name) == -1);
	CHECK_STR(name, "");
}

/* lo has no device: its counts are packets and softirqs, read from the live files. */
static void lo_is_counted_by_softirqs_and_its_packets_move(void)
{
	struct link l = { .ifname = "lo" };
	struct link_sample a, b;
	struct link_figures f;
	int fd[2];
	char c = 'x';

	CHECK(access("/sys/class/net/lo/statistics/rx_packets", R_OK) == 0);
	link_take(&l, &a);
	CHECK(a.ok);
	/* One UDP datagram to ourselves is one packet each way on lo. */
	fd[0] = socket(AF_INET, SOCK_DGRAM, 0);
	fd[1] = socket(AF_INET, SOCK_DGRAM, 0);
	{
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(sa);

		CHECK(bind(fd[1], (struct sockaddr *)&sa, sizeof(sa)) == 0);
		CHECK(getsockname(fd[1], (struct sockaddr *)&sa, &len) == 0);
		CHECK(sendto(fd[0], &c, 1, 0, (struct sockaddr *)&sa, sizeof(sa)) == 1);
		CHECK(recv(fd[1], &c, 1, 0) == 1);
	}
	link_take(&l, &b);
	CHECK(b.ok);
	link_figures(&a, &b, &f);
	CHECK(f.rx_packets >= 1 && f.tx_packets >= 1);
	CHECK(f.rx_pps > 0 && f.tx_pps > 0);
	close(fd[0]);
	close(fd[1]);
}

static void the_line_says_which_interrupts_it_counted(void)
{
	struct link lo = { .ifname = "lo" }, eth = { .ifname = "eth0", .n_irqs = 1 };
	struct link_figures f = { .rx_pps = 51234.4, .tx_pps = 51230, .ints_per_sec = 40211.2 };
	char buf[200];
	FILE *out = fmemopen(buf, sizeof(buf), "w");

	link_print(out, &lo, &f);
	fclose(out);
	CHECK_STR(buf, ", lo: rx 51234 pps, tx 51230 pps, 0 ints/s (softirqs 40211/s)");
	out = fmemopen(buf, sizeof(buf), "w");
	link_print(out, &eth, &f);
	fclose(out);
	CHECK_STR(buf, ", eth0: rx 51234 pps, tx 51230 pps, 40211 ints/s");
}

int main(void)
{
	RUN(the_device_irqs_are_summed_over_every_cpu);
	RUN(an_irq_missing_from_the_file_is_an_error);
	RUN(the_counts_stop_at_the_cpu_columns);
	RUN(net_rx_and_net_tx_softirqs_are_summed);
	RUN(loopback_addresses_are_on_lo_even_ipv4_mapped);
	RUN(lo_is_counted_by_softirqs_and_its_packets_move);
	RUN(the_line_says_which_interrupts_it_counted);
	return CHECK_EXIT();
}
