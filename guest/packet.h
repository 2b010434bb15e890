/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the daemons and the unit tests: how a v5 packet is read,
 * checked and explained.  struct autofs_v5_packet always comes from the
 * <linux/auto_fs.h> of the -I$(UAPI) tree, never from a private copy.
 */
#ifndef LAB_PACKET_H
#define LAB_PACKET_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/auto_fs.h>

#include "abi.h"
#include "compiler.h"

/* Room for more than any packet, so a reader asking for sizeof+4 fits. */
#define PKT_BUF_SIZE 512

enum read_status {
	RD_OK,		/* got exactly what the strategy wanted */
	RD_SHORT,	/* a read() returned a count the strategy refuses */
	RD_STALL,	/* poll() timed out before the packet was complete */
	RD_EOF,		/* the writer went away mid-packet (or before it) */
	RD_ERROR,	/* poll()/read() failed, see err */
	RD_INTR,	/* the watchdog or a signal asked us to stop */
};

struct read_result {
	enum read_status status;
	size_t want;	/* bytes the strategy expects per packet */
	size_t got;	/* bytes it actually received */
	size_t queued;	/* FIONREAD just before the first read: what the kernel wrote */
	int err;	/* errno for RD_ERROR */
	long waited_ms;	/* how long the last poll() waited */
};

/* A reading strategy: same signature for systemd-style and automount-style. */
struct reader {
	const char *name;
	int (*read)(int fd, void *buf, size_t bufsz, int timeout_ms,
		    struct read_result *rr);
};

extern const struct reader reader_systemd_style;
extern const struct reader reader_automount_style;

/* autofs 5.0.1-5.0.6's idea of the packet size for a uname machine. */
size_t automount_kpkt_len(const char *machine);
/* automount's loop: read until want bytes came, every read poll-bounded. */
int automount_read_sized(int fd, void *buf, size_t bufsz, size_t want,
			 int timeout_ms, struct read_result *rr);

/* Set by a signal handler: readers give up with RD_INTR. */
extern volatile sig_atomic_t lab_stop;

/*
 * The signals that set lab_stop.  wait_readable() keeps them blocked
 * except inside ppoll(), so one that comes just before the wait ends it
 * at once instead of after a whole timeout.
 */
void lab_stop_signals(sigset_t *set);

/*
 * Wait up to timeout_ms for fd to be readable: 1 ready, 0 timed out,
 * -1 error or lab_stop (errno EINTR).
 */
int wait_readable(int fd, int timeout_ms, long *waited_ms);
/*
 * Wait for fd to be readable, then read() up to n bytes, all within
 * timeout_ms: EAGAIN (another reader was first) or EINTR waits again for
 * what is left of it.  Sets rr->queued (FIONREAD) if rr->got is 0 and
 * rr->waited_ms.  Returns read()'s count, or -1 with rr->status
 * RD_STALL, RD_INTR or RD_ERROR and rr->err.
 */
ssize_t read_when_ready(int fd, void *buf, size_t n, int timeout_ms,
			struct read_result *rr);
/* Bytes sitting in a pipe (FIONREAD), or -1. */
long pipe_queued(int fd);

/* What a packet must look like to be acted upon. */
struct pkt_expect {
	int type;			/* autofs_ptype_*_indirect */
	const char *const *names;	/* acceptable keys */
	int n_names;
	unsigned int pid;		/* the process that triggered it */
	unsigned int dev;		/* autofs root st_dev (0: unchecked) */
	unsigned long long ino;		/* autofs root st_ino (0: unchecked) */
	const autofs_wqt_t *answered;	/* tokens already answered */
	int n_answered;
};

/*
 * Check every field byte-wise.  Returns the index of the matching name,
 * or -1 with a short reason (no double quotes) in why.
 */
int packet_validate(const void *buf, size_t got, const struct pkt_expect *ex,
		    char *why, size_t whylen);

/* Why a read failed, in words fit for the RESULT detail. */
void read_describe(const struct read_result *rr, const void *buf,
		   char *why, size_t whylen);

/*
 * If these bytes look like a previous 304-byte packet's tail padding,
 * say so (empty string otherwise).
 */
void leftover_hint(const void *buf, size_t got, char *hint, size_t len);

/* Hex dump of the first bytes plus a field-by-field decode. */
void packet_diagnose(FILE *f, const char *prefix, const void *buf,
		     size_t got);

const char *ptype_name(int type);

#endif
