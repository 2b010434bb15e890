// SPDX-License-Identifier: GPL-2.0
/* The RESULT line: one writer for every guest program. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "result.h"

void result_init(struct lab_result *r, int step, const char *reader, const char *abi)
{
	*r = (struct lab_result){
		.step = step, .reader = reader, .abi = abi,
		.verdict = "error", .cause = "unknown",
		.queued = RESULT_UNKNOWN, .want = RESULT_UNKNOWN, .got = RESULT_UNKNOWN,
	};
}

/* Words go into key=value fields: nothing that ends a field survives. */
static void word(char *out, size_t len, const char *in)
{
	size_t i;

	for (i = 0; in && in[i] && i + 1 < len; i++)
		out[i] = in[i] <= ' ' || in[i] == '"' || in[i] > '~' ? '_' : in[i];
	out[i] = '\0';
	if (!i)
		snprintf(out, len, "?");
}

static void add_value(struct lab_result *r, const char *key, unsigned long long v,
		      int hex, int known)
{
	if (r->nvalues >= RESULT_VALUES_MAX)
		return;
	r->values[r->nvalues++] = (struct result_value){
		.key = key, .v = v, .hex = hex, .known = known,
	};
}

void result_value(struct lab_result *r, const char *key, unsigned long long v, int hex)
{
	add_value(r, key, v, hex, 1);
}

void result_unknown(struct lab_result *r, const char *key)
{
	add_value(r, key, 0, 0, 0);
}

/* The optional values, each " key=value": empty if there are none. */
static void values_field(char *out, size_t len, const struct lab_result *r)
{
	char key[RESULT_KEY_MAX];
	size_t used = 0;
	int i, n;

	out[0] = '\0';
	for (i = 0; i < r->nvalues && i < RESULT_VALUES_MAX && used < len; i++) {
		const struct result_value *v = &r->values[i];

		word(key, sizeof(key), v->key);
		for (char *p = key; *p; p++)
			if (*p == '=')
				*p = '_';
		if (!v->known)
			n = snprintf(out + used, len - used, " %s=-", key);
		else if (v->hex)
			n = snprintf(out + used, len - used, " %s=0x%016llx", key, v->v);
		else
			n = snprintf(out + used, len - used, " %s=%llu", key, v->v);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static void size_field(char *out, size_t len, long v)
{
	if (v < 0)
		snprintf(out, len, "-");
	else
		snprintf(out, len, "%ld", v);
}

int result_format(char *buf, size_t len, const struct lab_result *r)
{
	char comm[17] = "", c[17], reader[32], abi[16], verdict[16], cause[16];
	char q[24], w[24], g[24], d[RESULT_DETAIL_MAX];
	char vals[RESULT_VALUES_MAX * (RESULT_KEY_MAX + 22)];

	if (prctl(PR_GET_NAME, comm) < 0)
		comm[0] = '\0';
	word(c, sizeof(c), comm);
	word(reader, sizeof(reader), r->reader);
	word(abi, sizeof(abi), r->abi);
	word(verdict, sizeof(verdict), r->verdict);
	word(cause, sizeof(cause), r->cause);
	size_field(q, sizeof(q), r->queued);
	size_field(w, sizeof(w), r->want);
	size_field(g, sizeof(g), r->got);
	values_field(vals, sizeof(vals), r);
	/* the detail is quoted: no quote or newline inside */
	snprintf(d, sizeof(d), "%s", r->detail);
	for (char *p = d; *p; p++)
		if (*p == '"' || *p == '\n' || *p == '\r')
			*p = '\'';
	return snprintf(buf, len, "RESULT step=%d reader=%s abi=%s comm=%s verdict=%s cause=%s packets=%d queued=%s want=%s got=%s%s detail=\"%s\"\n",
			r->step, reader, abi, c, verdict, cause, r->packets, q, w, g, vals, d);
}

int result_parse_num(const char *s, long lo, long hi, int *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

int result_args(int argc, char **argv, struct lab_result *r, int *timeout_ms)
{
	const char *more = timeout_ms ? " --timeout-ms MS" : "";
	int have_step = 0, have_tmo = 0, i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--step") && !have_step &&
		    result_parse_num(argv[i + 1], 0, 99, &r->step) == 0)
			have_step = 1;
		else if (timeout_ms && !strcmp(argv[i], "--timeout-ms") && !have_tmo &&
			 result_parse_num(argv[i + 1], 1, 60000, timeout_ms) == 0)
			have_tmo = 1;
		else
			break;
	}
	/* no default for the limit: init.sh passes lab.read_ms */
	if (i == argc && have_step && (have_tmo || !timeout_ms))
		return 0;
	fprintf(stderr, "usage: %s --step N%s   (N: the lab step, 0-99%s)\n", r->reader, more,
		timeout_ms ? "; MS: the read limit, lab.read_ms, 1-60000" : "");
	r->cause = "usage";
	snprintf(r->detail, sizeof(r->detail), "usage: %s --step N%s", r->reader, more);
	return -1;
}

static int result_exit_status(const char *verdict)
{
	if (!strcmp(verdict, "error"))
		return 2;
	if (!strcmp(verdict, "broken"))
		return 1;
	return 0;
}

int result_print(const struct lab_result *r)
{
	char line[RESULT_LINE_MAX];

	result_format(line, sizeof(line), r);
	fflush(stderr);
	fputs(line, stdout);
	fflush(stdout);
	return result_exit_status(r->verdict);
}
