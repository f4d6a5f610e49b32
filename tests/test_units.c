/* The rates' units (-f): the 2001 kbytes/sec by default, bits a second and bytes as iperf3 -f. */
#include "../lib/units.h"
#include "check.h"

static void each_unit_prints_the_rate_in_its_name(void)
{
	char buf[48];

	/* 125,000,000 bytes in 1 s: 1 Gbit/s, 122070 KiB/s. */
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 1000000000, 'K'), "122070 kbytes/sec");
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 1000000000, 'k'), "1000000.00 Kbits/sec");
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 1000000000, 'm'), "1000.00 Mbits/sec");
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 1000000000, 'g'), "1.00 Gbits/sec");
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 1000000000, 't'), "0.00 Tbits/sec");
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 1000000000, 'M'), "119.21 Mbytes/sec");
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 1000000000, 'G'), "0.12 Gbytes/sec");
	/* Over half a second, twice the rate; nothing over no time is 0. */
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 500000000, 'g'), "2.00 Gbits/sec");
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 0, 'm'), "0.00 Mbits/sec");
	CHECK_STR(units_rate(buf, sizeof(buf), 125000000, 0, 'K'), "0 kbytes/sec");
	/* The default truncates as the 2001 line did: 1023 bytes a second is 0 kbytes/sec. */
	CHECK_STR(units_rate(buf, sizeof(buf), 1023, 1000000000, 'K'), "0 kbytes/sec");
}

static void only_the_letters_are_units(void)
{
	CHECK(units_valid("k") && units_valid("m") && units_valid("g") && units_valid("t"));
	CHECK(units_valid("K") && units_valid("M") && units_valid("G"));
	CHECK(!units_valid("T") && !units_valid("x") && !units_valid("") && !units_valid("mb") &&
	      !units_valid("kk"));
}

int main(void)
{
	RUN(each_unit_prints_the_rate_in_its_name);
	RUN(only_the_letters_are_units);
	return CHECK_EXIT();
}
