/* automount-style reading (autofs 5.0.x get_kpkt_len()): a 32-bit daemon
 * that finds itself on a 64-bit kernel adds the 4 bytes of tail padding
 * the kernel's sizeof() has, then loops on read() until that many came. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "packet.h"

size_t automount_kpkt_len(const char *machine)
{
	/* 64-bit kernels whose sizeof() pads the 300-byte layout to 304 */
	static const char *const wide[] = {
		"x86_64", "alpha", "ia64", "parisc64", "ppc64", "sparc64", "s390x",
	};
	size_t len = sizeof(struct autofs_v5_packet);

	if (len % 8 == 0)
		return len;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (!strcmp(machine, wide[i]))
			return len + 4;
	return len;
}

int automount_read_sized(int fd, void *buf, size_t bufsz, size_t want,
			 int timeout_ms, struct read_result *rr)
{
	unsigned char *p = buf;
	ssize_t n;
	int r;

	*rr = (struct read_result){ .want = want };
	if (bufsz < want) {
		rr->status = RD_ERROR;
		rr->err = EINVAL;
		return -1;
	}
	while (rr->got < want) {
		r = wait_readable(fd, timeout_ms, &rr->waited_ms);
		if (r <= 0) {
			rr->status = r == 0 ? RD_STALL : lab_stop ? RD_INTR : RD_ERROR;
			rr->err = errno;
			return -1;
		}
		if (rr->got == 0) {
			long q = pipe_queued(fd);

			rr->queued = q > 0 ? (size_t)q : 0;
		}
		n = read(fd, p + rr->got, want - rr->got);
		if (n < 0 && errno == EINTR && !lab_stop)
			continue;
		if (n < 0 && errno == EAGAIN)
			continue;	/* poll said ready, someone raced us: poll again */
		if (n < 0) {
			rr->status = lab_stop ? RD_INTR : RD_ERROR;
			rr->err = errno;
			return -1;
		}
		if (n == 0) {
			rr->status = RD_EOF;
			return -1;
		}
		rr->got += (size_t)n;
	}
	rr->status = RD_OK;
	return 0;
}

static int read_automount(int fd, void *buf, size_t bufsz, int timeout_ms,
			  struct read_result *rr)
{
	struct utsname un;

	/* a 32-bit process on a 64-bit kernel still sees machine=x86_64 */
	if (uname(&un) < 0)
		strcpy(un.machine, "unknown");
	return automount_read_sized(fd, buf, bufsz, automount_kpkt_len(un.machine),
				    timeout_ms, rr);
}

const struct reader reader_automount_style = {
	.name = "automount-style",
	.read = read_automount,
};
