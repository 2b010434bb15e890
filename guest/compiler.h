/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's names for two things userspace lacks (its
 * <linux/compiler_attributes.h> and <linux/kernel.h> are not uapi), so the
 * guest's C reads as the kernel's does and checkpatch.pl knows them.
 */
#ifndef LAB_COMPILER_H
#define LAB_COMPILER_H

#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))
#endif

#endif
