/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Test data for abi-scan (scripts/abi-scan/test.sh): one struct of each
 * kind, with the sizes the scan must find (i386 / x86_64 / x32).
 */
#ifndef _ABISCAN_SYNTHETIC_H
#define _ABISCAN_SYNTHETIC_H

#include <linux/types.h>

/* Class 1, autofs's shape: every member in place, 4 bytes of tail
 * padding on x86_64 and x32 only. 12 / 16 / 16 */
struct abiscan_tail {
	__u64 a;
	__u32 b;
};

/* Class 2: b moves from offset 4 to 8 where __u64 is 8-aligned.
 * 12 / 16 / 16 */
struct abiscan_shift {
	__u32 a;
	__u64 b;
};

/* Class 3: long is 4 bytes on i386 and x32, 8 on x86_64. 8 / 16 / 8 */
struct abiscan_long {
	__u32 a;
	long b;
};

/* No difference: packed, the same 12 bytes everywhere. */
struct abiscan_packed {
	__u32 a;
	__u64 b;
} __attribute__((packed));

/* Class 1 through a member: only the member's tail padding differs.
 * 12 / 16 / 16 */
struct abiscan_nested {
	struct abiscan_tail t;
};

#endif /* _ABISCAN_SYNTHETIC_H */
