/*
 * units: the unit a rate is printed in (zcc and zcs -f, as iperf3's): the
 * 2001 lines' kbytes/sec by default, or bits a second for those who read a
 * link's speed so.
 */
#ifndef ZC_UNITS_H
#define ZC_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* The default: kbytes/sec, KiB a second, a whole number, as 2001 printed it. */
#define UNITS_DEFAULT 'K'

/* The -f letters, "k, m, g, t (bits a second, x1000) or K, M, G (bytes, x1024)". */
#define UNITS_LETTERS "kmgtKMG"

/* Whether f is one of UNITS_LETTERS. */
int units_valid(const char *f);
/* -f's value, the unit's letter; anything else is a usage error naming option c. */
char units_option(int c, const char *arg);

/*
 * bytes over ns nanoseconds in unit f into buf (len bytes), and buf: "N
 * kbytes/sec" for K (N whole, truncated, as timing_kbytes_per_sec has it),
 * "N.NN Mbytes/sec" or "N.NN Gbytes/sec" for M and G (2^20, 2^30 bytes),
 * "N.NN Kbits/sec" to "N.NN Tbits/sec" for k to t (10^3 to 10^12 bits).
 */
const char *units_rate(char *buf, size_t len, uint64_t bytes, uint64_t ns, char f);

#endif
