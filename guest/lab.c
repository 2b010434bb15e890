// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of a daemon run that the host tests link too: the first
 * failure decides the RESULT, cleanup, and the verdict of the whole run.
 * Everything that touches the kernel goes through L->ops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "daemon.h"

static int lab_failed(const struct lab *L)
{
	return L->res.detail[0] != '\0';
}

static __printf(5, 0) void vfail(struct lab *L, const char *verdict, const char *cause,
				  const struct pkt_sizes *sz, const char *fmt, va_list ap)
{
	if (lab_failed(L))
		return;
	L->res.verdict = verdict;
	L->res.cause = cause;
	if (sz) {
		L->res.queued = sz->queued;
		L->res.want = sz->want;
		L->res.got = sz->got;
	}
	vsnprintf(L->res.detail, sizeof(L->res.detail), fmt, ap);
}

void lab_broken(struct lab *L, const char *cause, const struct pkt_sizes *sz,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(L, "broken", cause, sz, fmt, ap);
	va_end(ap);
}

void lab_error(struct lab *L, const char *cause, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(L, "error", cause, NULL, fmt, ap);
	va_end(ap);
}

void lab_cut_short(struct lab *L, const char *cause, const char *fmt, ...)
{
	char why[RESULT_DETAIL_MAX], what[RESULT_DETAIL_MAX];
	va_list ap;

	snprintf(why, sizeof(why), "%s", lab_failed(L) ? L->res.detail : "serving");
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	result_init(&L->res, L->res.step, L->res.reader, L->res.abi);
	lab_error(L, cause, "%s: %s", what, why);
}

/* Always: wake blocked clients, reap every child, leave nothing mounted. */
void lab_cleanup(struct lab *L)
{
	const struct lab_ops *ops = L->ops;

	if (L->ioctl_fd >= 0 && L->autofs_mounted &&
	    ops->ioctl(L, AUTOFS_IOC_CATATONIC, 0) < 0)
		fprintf(stderr, "%s: AUTOFS_IOC_CATATONIC: %s\n", L->prog, strerror(errno));
	kids_reap_all(L, L->timeout_ms < 250 ? L->timeout_ms : 250);
	for (int k = 0; k < NKEYS; k++) {
		if (!L->sub_mounted[k])
			continue;
		if (ops->umount(L, L->sub[k], 0) < 0 &&
		    ops->umount(L, L->sub[k], MNT_DETACH) < 0)
			fprintf(stderr, "%s: umount %s: %s\n", L->prog, L->sub[k], strerror(errno));
		L->sub_mounted[k] = 0;
	}
	if (L->ioctl_fd >= 0)
		close(L->ioctl_fd);
	L->ioctl_fd = -1;
	if (L->autofs_mounted) {
		if (ops->umount(L, L->dir, 0) < 0) {
			fprintf(stderr, "%s: umount %s: %s, detaching\n", L->prog, L->dir,
				strerror(errno));
			if (ops->umount(L, L->dir, MNT_DETACH) < 0)
				fprintf(stderr, "%s: umount -l %s: %s\n", L->prog, L->dir,
					strerror(errno));
		}
		L->autofs_mounted = 0;
	}
	if (L->pipe_w >= 0)
		close(L->pipe_w);
	if (L->pipe_r >= 0)
		close(L->pipe_r);
	L->pipe_r = L->pipe_w = -1;
}

/* The RESULT of a run that served every request. */
static void result_ok(struct lab *L)
{
	L->res.verdict = "ok";
	L->res.cause = L->dropped ? "dropped" : "none";
	L->res.queued = L->first.queued;
	L->res.want = L->first.want;
	L->res.got = L->first.got;
	if (L->dropped)
		snprintf(L->res.detail, sizeof(L->res.detail),
			 "%d requests; the kernel queued %ld bytes per packet, %ld were read and the packet pipe dropped the rest",
			 L->requests, L->first.queued, L->first.got);
	else
		snprintf(L->res.detail, sizeof(L->res.detail),
			 "%d requests; %ld-byte packets, each read whole", L->requests,
			 L->first.got);
}

void lab_finish(struct lab *L, int rc)
{
	if (rc == 0)
		result_ok(L);
	else if (!lab_failed(L))
		lab_error(L, "unknown", "failed without a reason (a lab bug)");
	L->res.packets = L->requests;
}
