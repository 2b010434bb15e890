/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host tests share: the sizes, the packet the fake kernel
 * writes, and two checks.  Each test is one translation unit with the
 * kselftest harness, so this header defines its helpers static.
 */
#ifndef LAB_TEST_H
#define LAB_TEST_H

#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "packet.h"

#define NATIVE sizeof(struct autofs_v5_packet)
#define WIDE 304	/* what a 64-bit kernel writes */
#define COMPAT 300	/* what the 2012 compat hack wrote */
#define DEV 0x2a
#define INO 1ULL

/* A v5 packet as autofs_notify_daemon() fills it, for DEV and INO. */
static inline void fill_pkt(struct autofs_v5_packet *p, int type, autofs_wqt_t token,
			    const char *name, unsigned int pid)
{
	memset(p, 0, sizeof(*p));
	p->hdr.proto_version = 5;
	p->hdr.type = type;
	p->wait_queue_token = token;
	p->dev = DEV;
	p->ino = INO;
	p->pid = p->tgid = pid;
	p->len = (unsigned int)strlen(name);
	strcpy(p->name, name);
}

static inline int host_is_x86_64(void)
{
	struct utsname un;

	return uname(&un) == 0 && !strcmp(un.machine, "x86_64");
}

#ifdef __i386__
#define LAB_AUDIT_ARCH AUDIT_ARCH_I386
#else
#define LAB_AUDIT_ARCH AUDIT_ARCH_X86_64
#endif

/*
 * From now on, in this process, the system call nr on fd (on any fd above
 * stderr if fd < 0) fails with err: what the kernel does only in a race,
 * made certain with a seccomp filter.  0, or -1 with errno.
 */
static inline int fail_syscall(int nr, int fd, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, LAB_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 3),
		/* the low half of args[0]: x86 is little-endian */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		fd < 0 ? (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 3, 0, 1) :
			 (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned int)fd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned int)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/* haystack holds needle; both shown if not */
#define EXPECT_HAS(haystack, needle)					\
	EXPECT_TRUE(strstr((haystack), (needle)) != NULL)		\
		TH_LOG("'%s' does not say '%s'", (haystack), (needle))

#endif
