/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Test data for abi-scan (scripts/abi-scan/test.sh): one struct of each
 * kind, with the sizes the scan must find (i386 / x86_64 / x32).
 */
#ifndef _ABISCAN_SYNTHETIC_H
#define _ABISCAN_SYNTHETIC_H

#include <linux/types.h>
#include <linux/ioctl.h>

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

/* Class 2 through an array of structs: items[1] is at 20 on i386 and at
 * 24 on x86_64 and x32, though sizeof is 8 everywhere. 8 / 8 / 8 */
struct abiscan_flexarr {
	__u64 n;
	struct abiscan_tail items[];
};

/* Class 2 the same way with a fixed bound: e[0] is in place, only
 * sizeof would differ if element 0 were all the scan saw, but e[1] moves
 * from 20 to 24. 56 / 72 / 72 */
struct abiscan_arr4 {
	__u64 n;
	struct abiscan_tail e[4];
};

/* No difference: the bound is an expression, 4 longs on i386 and x32 and
 * 2 on x86_64, 16 bytes at 4 everywhere (ib_user_mad_reg_req's shape).
 * 20 / 20 / 20 */
typedef unsigned long abiscan_packed_ulong __attribute__((aligned(4)));
struct abiscan_bound {
	__u32 a;
	abiscan_packed_ulong m[128 / (8 * sizeof(long))];
};

/* No difference: i386 gets a padding member where the others have a
 * hole of the same 4 bytes. 16 / 16 / 16 */
struct abiscan_abipad {
	__u32 a;
#ifdef __i386__
	__u32 pad;
#endif
	__aligned_u64 b;
};

/* Class 2 despite its annotation: aligned(8) on the struct makes sizeof
 * 16 everywhere but does not align b: at 4 on i386, 8 on the others. */
struct abiscan_notfixed {
	__u32 a;
	__u64 b;
} __attribute__((aligned(8)));

/* Class 3 with identical bytes: a pointer in an 8-byte slot.
 * 16 / 16 / 16 */
struct abiscan_slot {
	union {
		void *p;
		__u64 v;
	};
	__u32 x;
	__u32 y;
};

/* Loud: its size is in an ioctl number. Class 1, 12 / 16 / 16 */
struct abiscan_ioctl {
	__u64 a;
	__u32 b;
};
#define ABISCAN_IOC_GET _IOR('x', 1, struct abiscan_ioctl)

#endif /* _ABISCAN_SYNTHETIC_H */
