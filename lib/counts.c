#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counts.h"

#define RECALIBRATE "run 'cyclesoak -C' on an idle system"

/*
 * A whole line of decimal digits and nothing else, that fits: 0, or -1. No
 * calibration writes more than 20 digits (the most a 64-bit count has).
 */
#define COUNT_MAX_DIGITS 20

static int parse_count(const char *line, unsigned long long *v)
{
	char *end;

	if (!(line[0] >= '0' && line[0] <= '9') || strlen(line) > COUNT_MAX_DIGITS)
		return -1;
	errno = 0;
	*v = strtoull(line, &end, 10);
	return errno || *end != '\0' ? -1 : 0;
}

/* "cpus N", N from 1 up. */
static int parse_cpus(const char *line, long *cpus)
{
	unsigned long long v;

	if (strncmp(line, "cpus ", 5) != 0 || parse_count(line + 5, &v) < 0 || v < 1 ||
	    v > INT_MAX)
		return -1;
	*cpus = v;
	return 0;
}

/* "spread P%", P a decimal percentage. */
static int parse_spread(const char *line, double *spread)
{
	char *end;

	if (strncmp(line, "spread ", 7) != 0 || !(line[7] >= '0' && line[7] <= '9'))
		return -1;
	errno = 0;
	*spread = strtod(line + 7, &end) / 100;
	return errno || strcmp(end, "%") != 0 ? -1 : 0;
}

/* The lines a file may have, and one more, to say it has too many. */
#define COUNTS_LINES 5

/*
 * Read up to COUNTS_LINES lines, each whole whatever its length, without its
 * newline; lines[k] stays NULL past the end. A line with a NUL byte in it is
 * cut at the NUL and its first byte made 0x7f, which no line may start with,
 * so that it is refused as its line. Returns 0, or -1 with errno.
 */
static int read_lines(FILE *f, char *lines[COUNTS_LINES])
{
	for (int k = 0; k < COUNTS_LINES; k++)
		lines[k] = NULL;
	for (int k = 0; k < COUNTS_LINES; k++) {
		size_t cap = 0;
		ssize_t len;

		errno = 0;
		len = getline(&lines[k], &cap, f);
		if (len < 0) {
			free(lines[k]);
			lines[k] = NULL;
			return errno ? -1 : 0;
		}
		if (len > 0 && lines[k][len - 1] == '\n')
			lines[k][--len] = '\0';
		if (strlen(lines[k]) != (size_t)len)
			lines[k][0] = 0x7f;
	}
	return 0;
}

/*
 * "per_cpu ID:RATE ..." for file_cpus CPUs, each ID a CPU this host can
 * name, once, each RATE a count of 1 or more: into rates[ID], ids[] in the
 * line's order. 0, or -1.
 */
static int parse_per_cpu(const char *line, long file_cpus, double *rates, int *ids)
{
	const char *p = line + 8;
	long n = 0;

	if (strncmp(line, "per_cpu ", 8) != 0)
		return -1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		rates[i] = 0;
	while (*p) {
		char id_text[8], rate_text[COUNT_MAX_DIGITS + 1];
		unsigned long long id, rate;
		size_t id_len = strspn(p, "0123456789"), rate_len;

		if (id_len == 0 || id_len >= sizeof(id_text) || p[id_len] != ':')
			return -1;
		memcpy(id_text, p, id_len);
		id_text[id_len] = '\0';
		p += id_len + 1;
		rate_len = strcspn(p, " ");
		if (rate_len == 0 || rate_len >= sizeof(rate_text))
			return -1;
		memcpy(rate_text, p, rate_len);
		rate_text[rate_len] = '\0';
		p += rate_len;
		if (parse_count(id_text, &id) < 0 || id >= CPU_SETSIZE || rates[id] != 0 ||
		    parse_count(rate_text, &rate) < 0 || rate == 0 || n == file_cpus)
			return -1;
		rates[id] = rate;
		ids[n++] = id;
		if (*p == ' ' && p[1])
			p++;
		else if (*p)
			return -1;
	}
	return n == file_cpus ? 0 : -1;
}

/* Check the file's lines in order: the first error found is the one said. */
static const char *check_counts(char *const lines[COUNTS_LINES], struct soak_counts *c,
				long *file_cpus, double *rates, int *ids)
{
	unsigned long long rate;

	if (!lines[0])
		return "is empty";
	if (parse_count(lines[0], &rate) < 0)
		return "the first line is not a count of loops/sec";
	if (rate == 0)
		return "the calibrated rate is 0";
	/* A 2001 file has no second line; then there is no CPU count to check. */
	*file_cpus = 0;
	if (lines[1] && parse_cpus(lines[1], file_cpus) < 0)
		return "the second line is not 'cpus N'";
	c->spread = NAN;
	if (lines[2] && parse_spread(lines[2], &c->spread) < 0)
		return "the third line is not 'spread P%'";
	c->per_cpu_known = lines[3] != NULL;
	if (lines[3] && parse_per_cpu(lines[3], *file_cpus, rates, ids) < 0)
		return "the fourth line is not 'per_cpu CPU:RATE ...', a rate for each of its CPUs";
	if (lines[4])
		return "it has more than four lines";
	c->per_sec = rate;
	return NULL;
}

/* "0, 1 and 3": the CPUs ids[0..n), for a message. */
static void cpu_names(const int *ids, long n, char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (long i = 0; i < n && at < len; i++)
		at += snprintf(out + at, len - at, "%s%d", i == 0 ? "" : i == n - 1 ? " and " : ", ",
			       ids[i]);
}

/* The file's rates, for the CPUs asked: c's total and each one's. NULL, or what is wrong. */
static const char *rates_for(struct soak_counts *c, const double *rates, const int *ids,
			     long file_cpus, const int *cpus, int n_cpus, char *why, size_t len)
{
	char names[256];
	double sum = 0;
	int whole = n_cpus == file_cpus;

	if (!c->per_cpu_known) {
		/* No rate a CPU: the file serves its own count of CPUs, each the total's share. */
		for (int i = 0; i < n_cpus; i++)
			c->cpu_per_sec[i] = c->per_sec / n_cpus;
		return NULL;
	}
	for (int i = 0; i < n_cpus; i++) {
		if (rates[cpus[i]] == 0) {
			cpu_names(ids, file_cpus, names, sizeof(names));
			snprintf(why, len, "has no rate for CPU %d (it calibrated CPU%s %s): calibrate "
				 "the CPUs this run uses", cpus[i], file_cpus == 1 ? "" : "s", names);
			return why;
		}
		c->cpu_per_sec[i] = rates[cpus[i]];
		sum += rates[cpus[i]];
	}
	/* The whole file's CPUs: its total, the median of the whole's samples, as the 2001 file had it. */
	if (!whole)
		c->per_sec = sum;
	return NULL;
}

int counts_parse(FILE *f, const char *path, const int *cpus, int n_cpus, struct soak_counts *c,
		 char *errbuf, size_t errlen)
{
	static struct soak_counts got;
	static double rates[CPU_SETSIZE];
	static int ids[CPU_SETSIZE];
	char *lines[COUNTS_LINES], why[400];
	const char *wrong;
	long file_cpus;
	int rc = read_lines(f, lines);

	if (rc < 0)
		snprintf(errbuf, errlen, "%s: %s: %s", path, strerror(errno), RECALIBRATE);
	wrong = rc < 0 ? NULL : check_counts(lines, &got, &file_cpus, rates, ids);
	for (int k = 0; k < COUNTS_LINES; k++)
		free(lines[k]);
	if (rc < 0)
		return -1;
	if (wrong && strcmp(wrong, "is empty") == 0) {
		snprintf(errbuf, errlen, "%s is empty: %s", path, RECALIBRATE);
		return -1;
	}
	if (wrong) {
		snprintf(errbuf, errlen, "%s: %s: %s", path, wrong, RECALIBRATE);
		return -1;
	}
	if (!file_cpus)
		file_cpus = n_cpus;
	if (!got.per_cpu_known && file_cpus != n_cpus) {
		snprintf(errbuf, errlen,
			 "%s was calibrated on %ld CPU%s and this run uses %d: "
			 "calibrate with 'cyclesoak -C -N %d' or measure with -N %ld",
			 path, file_cpus, file_cpus == 1 ? "" : "s", n_cpus, n_cpus, file_cpus);
		return -1;
	}
	wrong = rates_for(&got, rates, ids, file_cpus, cpus, n_cpus, why, sizeof(why));
	if (wrong) {
		snprintf(errbuf, errlen, "%s %s", path, wrong);
		return -1;
	}
	*c = got;
	return 0;
}

int counts_read(const char *path, const int *cpus, int n_cpus, struct soak_counts *c,
		char *errbuf, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		snprintf(errbuf, errlen, "%s: %s: %s", path, strerror(errno), RECALIBRATE);
		return -1;
	}
	rc = counts_parse(f, path, cpus, n_cpus, c, errbuf, errlen);
	fclose(f);
	return rc;
}

/* A new temporary file beside path, its name in tmp: an fd, or -1 and errno. */
static int temp_beside(const char *path, char *tmp, size_t len)
{
	if (snprintf(tmp, len, "%s.XXXXXX", path) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkstemp(tmp);
}

int counts_check_writable(const char *path)
{
	char tmp[4096];
	int fd = temp_beside(path, tmp, sizeof(tmp));

	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	return 0;
}

/*
 * Written to a temporary file of a fresh name, created exclusively (mkstemp:
 * a link planted in the directory is never followed, which matters when root
 * calibrates in a directory others can write), then renamed over the file.
 * mkstemp makes the file private; it gets the mode the umask allows, as any
 * new file would.
 */
int counts_write(const char *path, const struct soak_counts *c, const int *cpus, int n_cpus)
{
	char tmp[4096];
	mode_t mask = umask(0);
	FILE *f;
	int fd;

	umask(mask);
	fd = temp_beside(path, tmp, sizeof(tmp));
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f || fchmod(fd, 0666 & ~mask) < 0) {
		if (f)
			fclose(f);
		else
			close(fd);
		unlink(tmp);
		return -1;
	}
	fprintf(f, "%.0f\ncpus %d\nspread %.2f%%\nper_cpu", c->per_sec, n_cpus, c->spread * 100);
	for (int i = 0; i < n_cpus; i++)
		fprintf(f, " %d:%.0f", cpus[i], c->cpu_per_sec[i]);
	fputc('\n', f);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		fclose(f);
		unlink(tmp);
		return -1;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}
