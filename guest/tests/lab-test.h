/* What the host tests share: the sizes, the packet the fake kernel
 * writes, and two checks.  Each test is one translation unit with the
 * kselftest harness, so this header defines its helpers static. */
#ifndef LAB_TEST_H
#define LAB_TEST_H

#include <string.h>
#include <sys/utsname.h>

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

/* haystack holds needle; both shown if not */
#define EXPECT_HAS(haystack, needle)					\
	EXPECT_TRUE(strstr((haystack), (needle)) != NULL)		\
		TH_LOG("'%s' does not say '%s'", (haystack), (needle))

#endif
