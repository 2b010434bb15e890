/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one RESULT line every guest program ends with.  Its format is
 * documented in guest/README.md, written only by result_format() and, for
 * programs that never got to print one, by result_line() in result.sh; the
 * host parses it in one place (scripts/labhost/results.py).
 */
#ifndef LAB_RESULT_H
#define LAB_RESULT_H

#include <stddef.h>

#define RESULT_DETAIL_MAX 256
#define RESULT_LINE_MAX 768
#define RESULT_UNKNOWN (-1L)	/* a size that was not measured: printed as - */
#define RESULT_VALUES_MAX 4
#define RESULT_KEY_MAX 16

/* An optional value after got=: " key=value", in the order they were set. */
struct result_value {
	const char *key;
	unsigned long long v;
	int hex;	/* 0x%016llx, else %llu */
	int known;	/* 0: not measured, printed as - */
};

struct lab_result {
	int step;
	const char *reader;	/* the program: systemd-style, packet-pipe, ... */
	const char *abi;	/* i386, x86_64, x32 */
	const char *verdict;	/* ok broken error, or a demo's own word */
	const char *cause;	/* what was observed: none leftover stall ... */
	int packets;		/* packets read (or attempted) */
	long queued;		/* FIONREAD before the deciding read's first read() */
	long want;		/* bytes the program asked for */
	long got;		/* bytes the deciding read returned */
	int nvalues;		/* none: the line is as it always was */
	struct result_value values[RESULT_VALUES_MAX];
	char detail[RESULT_DETAIL_MAX];
};

/* An empty result: unknown sizes, no detail. */
void result_init(struct lab_result *r, int step, const char *reader, const char *abi);

/*
 * Add a value, printed after got= as " key=v" (hex: 0x%016llx, else
 * %llu), or " key=-" if set with result_unknown().  A key is set once;
 * one more than RESULT_VALUES_MAX is a bug, and is dropped.
 */
void result_value(struct lab_result *r, const char *key, unsigned long long v, int hex);
void result_unknown(struct lab_result *r, const char *key);

/*
 * The line, newline included, into buf; comm is the calling task's own
 * name as the kernel sees it.  Only snprintf and prctl: call it early to
 * prepare a line that a signal handler may later write().
 */
int result_format(char *buf, size_t len, const struct lab_result *r);

/*
 * Format and print on stdout, flushed.  Returns the exit status that
 * goes with the verdict: 0 ok (or a demo's finding), 1 broken, 2 error.
 */
int result_print(const struct lab_result *r);

/* A whole decimal number in [lo, hi] into *out: 0, or -1. */
int result_parse_num(const char *s, long lo, long hi, int *out);

/*
 * The demos' command line, "--step N", and "--timeout-ms MS" too if
 * timeout_ms is not NULL (required: a limit has no default).  0 with
 * r->step and *timeout_ms set, or -1 with the usage on stderr and r a
 * usage error, ready to print.
 */
int result_args(int argc, char **argv, struct lab_result *r, int *timeout_ms);

#endif
