// SPDX-License-Identifier: GPL-2.0
/*
 * automount-style reading, as autofs 5.0.1 to 5.0.6 did it (get_kpkt_len()
 * and fullread() in daemon/automount.c): a 32-bit daemon that finds itself
 * on a 64-bit kernel adds the 4 bytes of tail padding the kernel's sizeof()
 * has, then loops on read() until that many came.  autofs 5.0.7 and later
 * skip the 4 on kernels from 3.3 on; the lab replays the 2012 daemons.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>

#include "packet.h"

size_t automount_kpkt_len(const char *machine)
{
	/*
	 * autofs's list of 64-bit machines from 2007 to 2012 (parisc64 came
	 * in 2013); the 4 are added only when this build's sizeof is not a
	 * multiple of 8, so a 32-bit ppc build (304 already) adds nothing
	 */
	static const char *const wide[] = { "alpha", "ia64", "x86_64", "ppc64" };
	size_t len = sizeof(struct autofs_v5_packet);

	if (len % 8 == 0)
		return len;
	for (size_t i = 0; i < ARRAY_SIZE(wide); i++)
		if (!strcmp(machine, wide[i]))
			return len + 4;
	return len;
}

int automount_read_sized(int fd, void *buf, size_t bufsz, size_t want,
			 int timeout_ms, struct read_result *rr)
{
	unsigned char *p = buf;
	ssize_t n;

	*rr = (struct read_result){ .want = want };
	if (bufsz < want) {
		rr->status = RD_ERROR;
		rr->err = EINVAL;
		return -1;
	}
	while (rr->got < want) {
		n = read_when_ready(fd, p + rr->got, want - rr->got, timeout_ms, rr);
		if (n < 0)
			return -1;
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
