/* SPDX-License-Identifier: GPL-2.0 */
/*
 * packet-pipe's experiment, apart from its main() so that the host tests
 * can run it: two 304-byte writes into a fresh pipe, then a 300-byte read
 * and a 304-byte read.
 */
#ifndef LAB_PIPE_TRIAL_H
#define LAB_PIPE_TRIAL_H

#include <sys/types.h>

#define TRIAL_PKT 304
#define TRIAL_SHORT 300

struct trial {
	const char *name;
	long queued;		/* FIONREAD after the first write: one packet */
	long size;		/* F_GETPIPE_SZ */
	ssize_t n1, n2;		/* what the two reads returned */
	unsigned char r1[TRIAL_PKT], r2[TRIAL_PKT];
	char failed[96];	/* the call that failed, for the RESULT detail */
};

/*
 * The calls on a pipe made with pipe2(flags), each read waiting at most
 * timeout_ms: 0, or -1 with the failed call's errno (EIO for a short
 * write, which has none) and t->failed saying which.
 */
int pipe_trial(struct trial *t, int flags, int timeout_ms);
/* The 4 bytes read 1 left were dropped: read 2 got all of packet 2. */
int trial_packetized(const struct trial *t);
/* They came first in read 2, as in a byte stream. */
int trial_stream(const struct trial *t);

#endif
