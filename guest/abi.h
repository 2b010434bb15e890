/* SPDX-License-Identifier: GPL-2.0 */
/* LAB_ABI: the name, as guest/abis spells it, of the ABI being compiled for. */
#ifndef LAB_ABI_H
#define LAB_ABI_H

/* x32 defines __x86_64__ too: its 32-bit long and pointers tell it */
#if defined(__x86_64__) && defined(__ILP32__)
#define LAB_ABI "x32"
#elif defined(__x86_64__)
#define LAB_ABI "x86_64"
#elif defined(__i386__)
#define LAB_ABI "i386"
#else
#error "the lab is about i386, x86_64 and x32 only"
#endif

#endif
