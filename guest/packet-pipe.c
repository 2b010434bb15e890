/* Is pipe2(O_DIRECT) a packet pipe on this kernel?  Two 304-byte writes,
 * then a 300-byte read and a 304-byte read: a packet pipe throws away the
 * 4 bytes the first read left; a stream pipe hands them to the second. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "packet.h"

#define PKT 304
#define SHORT 300

static int step;

static int result(const char *verdict, const char *detail, int rc)
{
	printf("RESULT step=%d demo=packet-pipe verdict=%s detail=\"%s\"\n",
	       step, verdict, detail);
	return rc;
}

static int all(const unsigned char *b, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

/* Non-blocking read after poll(): never hangs, whatever the pipe does. */
static ssize_t bounded_read(int fd, unsigned char *buf, size_t n, int i)
{
	long waited;
	ssize_t r = -1;

	memset(buf, 0, n);
	if (wait_readable(fd, 1000, &waited) == 1)
		r = read(fd, buf, n);
	fprintf(stderr, "packet-pipe: read %d of %zu bytes returned %zd", i, n, r);
	if (r > 0)
		fprintf(stderr, ", first bytes %02x %02x %02x %02x %02x %02x",
			buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);
	fprintf(stderr, "%s\n", r < 0 ? " (nothing to read)" : "");
	return r;
}

int main(int argc, char **argv)
{
	unsigned char p1[PKT], p2[PKT], r1[PKT], r2[PKT];
	char detail[200];
	ssize_t n1, n2;
	int fds[2];

	if (argc == 3 && !strcmp(argv[1], "--step"))
		step = atoi(argv[2]);
	else if (argc != 1)
		return result("error", "usage: packet-pipe --step N", 2);

	if (pipe2(fds, O_DIRECT | O_NONBLOCK) < 0) {
		snprintf(detail, sizeof(detail), "pipe2(O_DIRECT): %s",
			 errno == EINVAL ? "EINVAL" : strerror(errno));
		return result(errno == EINVAL ? "unsupported" : "error", detail,
			      errno == EINVAL ? 0 : 1);
	}
	memset(p1, 0x11, sizeof(p1));
	memset(p2, 0x22, sizeof(p2));
	if (write(fds[1], p1, PKT) != PKT || write(fds[1], p2, PKT) != PKT)
		return result("error", "write of a 304-byte packet failed", 1);
	fprintf(stderr, "packet-pipe: wrote 304 bytes of 0x11, then 304 bytes of 0x22\n");

	n1 = bounded_read(fds[0], r1, SHORT, 1);
	n2 = bounded_read(fds[0], r2, PKT, 2);

	if (n1 == SHORT && all(r1, SHORT, 0x11) && n2 == PKT && all(r2, PKT, 0x22))
		return result("packetized", "read 1 got 300 of packet 1, read 2 got "
			      "all 304 of packet 2: the 4 leftover bytes were discarded", 0);
	if (n1 == SHORT && all(r1, SHORT, 0x11) && n2 >= 4 && all(r2, 4, 0x11)) {
		snprintf(detail, sizeof(detail), "read 2 got %zd bytes starting with "
			 "the 4 leftover bytes of packet 1", n2);
		return result("stream", detail, 0);
	}
	snprintf(detail, sizeof(detail), "unexpected: read 1 got %zd bytes, read 2 got %zd",
		 n1, n2);
	return result("error", detail, 1);
}
