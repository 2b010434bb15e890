// SPDX-License-Identifier: GPL-2.0
/*
 * uname26 PROG [ARGS...]: run PROG with the UNAME26 personality, under
 * which uname(2) reports 2.6.(60 + PATCHLEVEL) on kernels from 4.x on
 * (override_release() in kernel/sys.c): 2.6.61 for 6.1. A daemon that
 * decides by version number, as autofs's get_kpkt_len() does since
 * 5.0.7, then takes the path of a kernel before 3.3. The personality
 * survives execve, and the name the kernel sees stays PROG's. Static:
 * busybox has no setarch, and util-linux's is dynamically linked.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int old;

	if (argc < 2) {
		fprintf(stderr, "usage: uname26 PROG [ARGS...]\n");
		return 127;
	}
	old = personality(0xffffffff);	/* only asks */
	if (old == -1 || personality((old & ~PER_MASK) | PER_LINUX | UNAME26) == -1) {
		fprintf(stderr, "uname26: personality: %s\n", strerror(errno));
		return 126;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "uname26: exec %s: %s\n", argv[1], strerror(errno));
	return 127;
}
