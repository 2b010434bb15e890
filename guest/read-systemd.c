// SPDX-License-Identifier: GPL-2.0
/*
 * systemd-style reading: one read() of exactly sizeof(struct autofs_v5_packet)
 * as compiled, and anything else is an error.  On i386 that is 300 bytes,
 * so a 304-byte packet in a stream pipe leaves 4 bytes for the next read.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "packet.h"

static int read_systemd(int fd, void *buf, size_t bufsz, int timeout_ms,
			struct read_result *rr)
{
	ssize_t n;

	*rr = (struct read_result){ .want = sizeof(struct autofs_v5_packet) };
	if (bufsz < rr->want) {
		rr->status = RD_ERROR;
		rr->err = EINVAL;
		return -1;
	}
	n = read_when_ready(fd, buf, rr->want, timeout_ms, rr);
	if (n < 0)
		return -1;
	rr->got = (size_t)n;
	if (n == 0)
		rr->status = RD_EOF;
	else if (rr->got != rr->want)
		rr->status = RD_SHORT;
	else
		rr->status = RD_OK;
	return rr->status == RD_OK ? 0 : -1;
}

const struct reader reader_systemd_style = {
	.name = "systemd-style",
	.read = read_systemd,
};
