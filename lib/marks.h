/* marks: the lines the programs judge a run by, and the scripts with them. */
#ifndef ZC_MARKS_H
#define ZC_MARKS_H

/*
 * Each a "#define NAME VALUE" line of its own: scripts/bench-lib.sh's
 * bench_mark reads the value from here, so that zc-report judges a cell
 * by the programs' own mark and no copy of it can drift.
 */

/* -R: a run that reaches less of the rate than this did not run at it. */
#define RATE_REACHED_PCT 95.0

/*
 * A run that lost more than this share of its datagrams did less work than
 * it was asked to, and its load is not comparable with that of runs that did.
 */
#define DGRAM_LOSS_PCT 1.0

/*
 * A window a hypervisor took more of the metered CPUs' time from than this
 * (steal) is flagged: the soakers lose it as they lose a load's.
 */
#define STEAL_FLAG_PCT 1.0

#endif
