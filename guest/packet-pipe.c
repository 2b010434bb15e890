/* Is pipe2(O_DIRECT) a packet pipe on this kernel?  The same calls on an
 * ordinary pipe first, as the control: two 304-byte writes, then a
 * 300-byte read and a 304-byte read.  A packet pipe throws away the 4
 * bytes the first read left; a stream pipe hands them to the second. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "packet.h"
#include "result.h"

#define PKT 304
#define SHORT 300

struct trial {
	const char *name;
	long queued;		/* FIONREAD after the first write: one packet */
	long size;		/* F_GETPIPE_SZ */
	ssize_t n1, n2;		/* what the two reads returned */
	unsigned char r1[PKT], r2[PKT];
};

static int all(const unsigned char *b, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

/* Non-blocking read after poll(): never hangs, whatever the pipe does. */
static ssize_t bounded_read(const char *name, int fd, unsigned char *buf, size_t n, int i)
{
	long waited;
	ssize_t r = -1;

	memset(buf, 0, n);
	if (wait_readable(fd, 1000, &waited) == 1)
		r = read(fd, buf, n);
	fprintf(stderr, "packet-pipe: %s pipe: read %d of %zu bytes returned %zd", name, i, n, r);
	if (r > 0)
		fprintf(stderr, ", first bytes %02x %02x %02x %02x %02x %02x",
			buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);
	fprintf(stderr, "%s\n", r < 0 ? " (nothing to read)" : "");
	return r;
}

/* The calls on a pipe made with pipe2(flags): 0, or -1 with errno. */
static int trial(struct trial *t, int flags)
{
	unsigned char p1[PKT], p2[PKT];
	int fds[2];

	if (pipe2(fds, flags | O_NONBLOCK) < 0)
		return -1;
	memset(p1, 0x11, sizeof(p1));
	memset(p2, 0x22, sizeof(p2));
	if (write(fds[1], p1, PKT) != PKT)
		goto fail;
	t->queued = pipe_queued(fds[0]);
	/* only this program asks for the pipe's size: the gdb script of
	 * step 4 stops in pipe_fcntl() to look at the first write's buffer */
	t->size = fcntl(fds[1], F_GETPIPE_SZ);
	if (write(fds[1], p2, PKT) != PKT)
		goto fail;
	fprintf(stderr, "packet-pipe: %s pipe of %ld bytes: wrote 304 bytes of 0x11 (%ld queued), "
		"then 304 bytes of 0x22\n", t->name, t->size, t->queued);
	t->n1 = bounded_read(t->name, fds[0], t->r1, SHORT, 1);
	t->n2 = bounded_read(t->name, fds[0], t->r2, PKT, 2);
	close(fds[0]);
	close(fds[1]);
	return 0;
fail:
	close(fds[0]);
	close(fds[1]);
	errno = EIO;
	return -1;
}

static int packetized(const struct trial *t)
{
	return t->n1 == SHORT && all(t->r1, SHORT, 0x11) && t->n2 == PKT && all(t->r2, PKT, 0x22);
}

static int stream(const struct trial *t)
{
	return t->n1 == SHORT && all(t->r1, SHORT, 0x11) && t->n2 == PKT &&
	       all(t->r2, 4, 0x11) && all(t->r2 + 4, PKT - 4, 0x22);
}

int main(int argc, char **argv)
{
	struct trial plain = { .name = "ordinary" }, direct = { .name = "O_DIRECT" };
	struct lab_result r;

	result_init(&r, 0, "packet-pipe", LAB_ABI);
	if (result_step_arg(argc, argv, &r) < 0)
		return result_print(&r);
	r.packets = 2;
	r.want = SHORT;

	/* the control: every kernel's ordinary pipe is a byte stream */
	if (trial(&plain, 0) < 0) {
		r.cause = "control";
		snprintf(r.detail, sizeof(r.detail), "the ordinary pipe failed: %s",
			 strerror(errno));
		return result_print(&r);
	}
	if (!stream(&plain)) {
		r.cause = "control";
		snprintf(r.detail, sizeof(r.detail), "the ordinary pipe is not a byte stream: "
			 "reads returned %zd and %zd", plain.n1, plain.n2);
		return result_print(&r);
	}
	if (trial(&direct, O_DIRECT) < 0) {
		if (errno != EINVAL) {
			r.cause = "setup";
			snprintf(r.detail, sizeof(r.detail), "pipe2(O_DIRECT): %s", strerror(errno));
			return result_print(&r);
		}
		r.verdict = "unsupported";
		r.cause = "einval";
		snprintf(r.detail, sizeof(r.detail), "pipe2(O_DIRECT) fails with EINVAL; the "
			 "ordinary pipe handed the 4 leftover bytes to read 2");
		return result_print(&r);
	}
	r.queued = direct.queued;
	r.got = direct.n1;
	if (packetized(&direct)) {
		r.verdict = "packetized";
		r.cause = "dropped";
		snprintf(r.detail, sizeof(r.detail), "O_DIRECT pipe: read 1 got 300 of packet 1, "
			 "read 2 all 304 of packet 2: the 4 leftover bytes were dropped "
			 "(the ordinary pipe handed them to read 2)");
	} else if (stream(&direct)) {
		r.verdict = "stream";
		r.cause = "leftover";
		snprintf(r.detail, sizeof(r.detail), "O_DIRECT pipe: read 2 got %zd bytes "
			 "starting with the 4 leftover bytes of packet 1, as an ordinary pipe",
			 direct.n2);
	} else {
		r.cause = "unexpected";
		snprintf(r.detail, sizeof(r.detail), "O_DIRECT pipe: read 1 got %zd bytes, "
			 "read 2 got %zd", direct.n1, direct.n2);
	}
	return result_print(&r);
}
