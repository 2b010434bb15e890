// SPDX-License-Identifier: GPL-2.0
/*
 * Is pipe2(O_DIRECT) a packet pipe on this kernel?  The same calls on an
 * ordinary pipe first, as the control: two 304-byte writes, then a
 * 300-byte read and a 304-byte read.  A packet pipe throws away the 4
 * bytes the first read left; a stream pipe hands them to the second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "packet.h"
#include "pipe-trial.h"
#include "result.h"

int main(int argc, char **argv)
{
	struct trial plain = { .name = "ordinary" }, direct = { .name = "O_DIRECT" };
	struct lab_result r;
	int timeout_ms;

	result_init(&r, 0, "packet-pipe", LAB_ABI);
	if (result_args(argc, argv, &r, &timeout_ms) < 0)
		return result_print(&r);
	r.packets = 2;
	r.want = TRIAL_SHORT;

	/* the control: every kernel's ordinary pipe is a byte stream */
	if (pipe_trial(&plain, 0, timeout_ms) < 0) {
		r.cause = "control";
		snprintf(r.detail, sizeof(r.detail), "the ordinary pipe failed: %s",
			 plain.failed);
		return result_print(&r);
	}
	if (!trial_stream(&plain)) {
		r.cause = "control";
		snprintf(r.detail, sizeof(r.detail), "the ordinary pipe is not a byte stream: reads returned %zd and %zd",
			 plain.n1, plain.n2);
		return result_print(&r);
	}
	if (pipe_trial(&direct, O_DIRECT, timeout_ms) < 0) {
		if (errno != EINVAL) {
			r.cause = "setup";
			snprintf(r.detail, sizeof(r.detail), "O_DIRECT pipe: %s", direct.failed);
			return result_print(&r);
		}
		r.verdict = "unsupported";
		r.cause = "einval";
		snprintf(r.detail, sizeof(r.detail), "pipe2(O_DIRECT) fails with EINVAL; the ordinary pipe handed the 4 leftover bytes to read 2");
		return result_print(&r);
	}
	r.queued = direct.queued;
	r.got = direct.n1;
	if (trial_packetized(&direct)) {
		r.verdict = "packetized";
		r.cause = "dropped";
		snprintf(r.detail, sizeof(r.detail), "O_DIRECT pipe: read 1 got 300 of packet 1, read 2 all 304 of packet 2: the 4 leftover bytes were dropped (the ordinary pipe handed them to read 2)");
	} else if (trial_stream(&direct)) {
		r.verdict = "stream";
		r.cause = "leftover";
		snprintf(r.detail, sizeof(r.detail), "O_DIRECT pipe: read 2 got %zd bytes starting with the 4 leftover bytes of packet 1, as an ordinary pipe",
			 direct.n2);
	} else {
		r.cause = "unexpected";
		snprintf(r.detail, sizeof(r.detail), "O_DIRECT pipe: read 1 got %zd bytes, read 2 got %zd",
			 direct.n1, direct.n2);
	}
	return result_print(&r);
}
