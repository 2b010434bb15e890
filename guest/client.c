// SPDX-License-Identifier: GPL-2.0
/*
 * client PATH: walk into PATH of an autofs mount and check that a tmpfs
 * is there, as a daemon's own client does (kids.c), from a program of
 * another ABI than the daemon's: the daemon execs it (--caller), so
 * that the process whose lookup makes the kernel write a packet is
 * not of the daemon's ABI.  Exits with an enum kid_exit.
 */
#include <stdio.h>

#include "daemon.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: client PATH (run by a daemon's --caller)\n");
		return KID_USAGE;
	}
	return client_walk("client", argv[1]);
}
