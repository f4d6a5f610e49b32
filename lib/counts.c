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

/*
 * Read up to four lines, each whole whatever its length, without its newline;
 * lines[k] stays NULL past the end. A line with a NUL byte in it is cut at
 * the NUL and its first byte made 0x7f, which no line may start with, so that
 * it is refused as its line. Returns 0, or -1 with errno.
 */
static int read_lines(FILE *f, char *lines[4])
{
	for (int k = 0; k < 4; k++)
		lines[k] = NULL;
	for (int k = 0; k < 4; k++) {
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

/* Check the file's lines in order: the first error found is the one said. */
static const char *check_counts(char *const lines[4], int n_cpus, struct soak_counts *c,
				long *file_cpus)
{
	unsigned long long rate;

	if (!lines[0])
		return "is empty";
	if (parse_count(lines[0], &rate) < 0)
		return "the first line is not a count of loops/sec";
	if (rate == 0)
		return "the calibrated rate is 0";
	/* A 2001 file has no second line; then there is no CPU count to check. */
	*file_cpus = n_cpus;
	if (lines[1] && parse_cpus(lines[1], file_cpus) < 0)
		return "the second line is not 'cpus N'";
	c->spread = NAN;
	if (lines[2] && parse_spread(lines[2], &c->spread) < 0)
		return "the third line is not 'spread P%'";
	if (lines[3])
		return "it has more than three lines";
	c->per_sec = rate;
	return NULL;
}

int counts_parse(FILE *f, const char *path, int n_cpus, struct soak_counts *c, char *errbuf,
		 size_t errlen)
{
	struct soak_counts got;
	char *lines[4];
	const char *wrong;
	long file_cpus;
	int rc = read_lines(f, lines);

	if (rc < 0)
		snprintf(errbuf, errlen, "%s: %s: %s", path, strerror(errno), RECALIBRATE);
	wrong = rc < 0 ? NULL : check_counts(lines, n_cpus, &got, &file_cpus);
	for (int k = 0; k < 4; k++)
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
	if (file_cpus != n_cpus) {
		snprintf(errbuf, errlen,
			 "%s was calibrated on %ld CPU%s and this run uses %d: "
			 "calibrate with 'cyclesoak -C -N %d' or measure with -N %ld",
			 path, file_cpus, file_cpus == 1 ? "" : "s", n_cpus, n_cpus, file_cpus);
		return -1;
	}
	*c = got;
	return 0;
}

int counts_read(const char *path, int n_cpus, struct soak_counts *c, char *errbuf, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		snprintf(errbuf, errlen, "%s: %s: %s", path, strerror(errno), RECALIBRATE);
		return -1;
	}
	rc = counts_parse(f, path, n_cpus, c, errbuf, errlen);
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
int counts_write(const char *path, const struct soak_counts *c, int n_cpus)
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
	fprintf(f, "%.0f\ncpus %d\nspread %.2f%%\n", c->per_sec, n_cpus, c->spread * 100);
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
