// SPDX-License-Identifier: GPL-2.0
/* packet-pipe's experiment: see pipe-trial.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "packet.h"
#include "pipe-trial.h"

#define PKT TRIAL_PKT
#define SHORT TRIAL_SHORT

static int all(const unsigned char *b, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

/* Non-blocking read after poll(): never hangs, whatever the pipe does. */
static ssize_t bounded_read(const char *name, int fd, unsigned char *buf, size_t n, int i,
			    int timeout_ms)
{
	long waited;
	ssize_t r = -1;

	memset(buf, 0, n);
	if (wait_readable(fd, timeout_ms, &waited) == 1)
		r = read(fd, buf, n);
	fprintf(stderr, "packet-pipe: %s pipe: read %d of %zu bytes returned %zd", name, i, n, r);
	if (r > 0)
		fprintf(stderr, ", first bytes %02x %02x %02x %02x %02x %02x",
			buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);
	fprintf(stderr, "%s\n", r < 0 ? " (nothing to read)" : "");
	return r;
}

/* One write of a whole packet; on failure say which, keeping its errno. */
static int write_pkt(struct trial *t, int fd, const unsigned char *p, int i)
{
	ssize_t n = write(fd, p, PKT);

	if (n == PKT)
		return 0;
	if (n < 0) {
		snprintf(t->failed, sizeof(t->failed), "write %d: %s", i, strerror(errno));
	} else {
		snprintf(t->failed, sizeof(t->failed), "write %d: %zd of %d bytes", i, n, PKT);
		errno = EIO;
	}
	return -1;
}

int pipe_trial(struct trial *t, int flags, int timeout_ms)
{
	unsigned char p1[PKT], p2[PKT];
	int fds[2], err;

	if (pipe2(fds, flags | O_NONBLOCK) < 0) {
		snprintf(t->failed, sizeof(t->failed), "pipe2: %s", strerror(errno));
		return -1;
	}
	memset(p1, 0x11, sizeof(p1));
	memset(p2, 0x22, sizeof(p2));
	if (write_pkt(t, fds[1], p1, 1) < 0)
		goto fail;
	t->queued = pipe_queued(fds[0]);
	/*
	 * only this program asks for the pipe's size: the gdb script of
	 * step 4 stops in pipe_fcntl() to look at the first write's buffer
	 */
	t->size = fcntl(fds[1], F_GETPIPE_SZ);
	if (write_pkt(t, fds[1], p2, 2) < 0)
		goto fail;
	fprintf(stderr, "packet-pipe: %s pipe of %ld bytes: wrote 304 bytes of 0x11 (%ld queued), then 304 bytes of 0x22\n",
		t->name, t->size, t->queued);
	t->n1 = bounded_read(t->name, fds[0], t->r1, SHORT, 1, timeout_ms);
	t->n2 = bounded_read(t->name, fds[0], t->r2, PKT, 2, timeout_ms);
	close(fds[0]);
	close(fds[1]);
	return 0;
fail:
	err = errno;
	close(fds[0]);
	close(fds[1]);
	errno = err;
	return -1;
}

int trial_packetized(const struct trial *t)
{
	return t->n1 == SHORT && all(t->r1, SHORT, 0x11) && t->n2 == PKT && all(t->r2, PKT, 0x22);
}

int trial_stream(const struct trial *t)
{
	return t->n1 == SHORT && all(t->r1, SHORT, 0x11) && t->n2 == PKT &&
	       all(t->r2, 4, 0x11) && all(t->r2 + 4, PKT - 4, 0x22);
}
