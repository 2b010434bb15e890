/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State of one daemon run, shared by daemon.c (setup, signals, main),
 * lab.c (failures, cleanup, the verdict), serve.c (the requests) and
 * kids.c (the processes that trigger them).
 */
#ifndef LAB_DAEMON_H
#define LAB_DAEMON_H

#include <limits.h>
#include <sys/types.h>

#include "packet.h"
#include "result.h"

#define NKEYS 2
#define MAX_KIDS 8
#define MAX_TOKENS 16

/*
 * How a child of the daemon ends: its exit status, the contract between
 * kids.c (which exits with these) and serve.c (which explains them).
 */
enum kid_exit {
	KID_OK = 0,		/* client: a tmpfs; expirer: every key expired once */
	KID_STAT = 1,		/* client: stat() of the key failed */
	KID_STATFS = 2,		/* client: statfs() failed */
	KID_NOT_TMPFS = 3,	/* client: the key is not a tmpfs */
	KID_SETPGID = 4,	/* client: could not leave the daemon's pgrp */
	KID_ORPHAN = 5,		/* the daemon was gone before the child started */
	KID_EXPIRE_FEW = 6,	/* expirer: EAGAIN before every key expired */
	KID_EXPIRE_MANY = 7,	/* expirer: more expires than keys */
	KID_EXPIRE_IOCTL = 8,	/* expirer: AUTOFS_IOC_EXPIRE_MULTI failed */
	KID_EXEC = 9,		/* client: the caller of another ABI could not run */
	KID_USAGE = 10,		/* client: called without one path */
};

/* Why a child ended, in words (status as from waitpid). */
void describe_status(const char *who, int status, char *out, size_t len);

/* The sizes of one packet read (see the RESULT fields in guest/README.md). */
struct pkt_sizes {
	long queued, want, got;
};

struct lab;

/*
 * What serving and cleanup ask of the kernel and of the children: the
 * real ones are in daemon.c and kids.c, tests/test-serve.c has a fake
 * kernel.  Each returns what its syscall would, errno included.
 */
struct lab_ops {
	int (*ioctl)(struct lab *L, unsigned long cmd, unsigned long arg);
	int (*mount)(struct lab *L, const char *src, const char *target,
		     const char *fstype, unsigned long flags, const char *opts);
	int (*umount)(struct lab *L, const char *target, int flags);
	int (*mkdir)(struct lab *L, const char *path, mode_t mode);
	int (*rmdir)(struct lab *L, const char *path);
	pid_t (*spawn_client)(struct lab *L, const char *path);
	pid_t (*spawn_expirer)(struct lab *L);
};

struct lab {
	const struct lab_ops *ops;
	const char *prog;
	const struct reader *reader;
	/*
	 * --caller: the program of another ABI that walks into the mount in
	 * the client's place (/lab/ABI/client), so that the process the
	 * kernel writes the packet for is not of the daemon's ABI; NULL:
	 * the client, a fork of the daemon, walks in itself
	 */
	const char *caller;
	int timeout_ms;
	char dir[256];
	char sub[NKEYS][264];		/* dir/a, dir/b */
	int sub_mounted[NKEYS];

	int pipe_r, pipe_w, ioctl_fd;
	int autofs_mounted;
	unsigned int root_dev;
	unsigned long long root_ino;

	pid_t daemon_pid;
	pid_t kids[MAX_KIDS];
	int nkids;

	autofs_wqt_t answered[MAX_TOKENS];
	int n_answered;
	int requests;		/* packets read (or attempted) so far */
	struct pkt_sizes first;	/* request 1, read whole */
	long prev_left;		/* bytes left in the pipe after the last packet */
	int dropped;		/* a packet pipe dropped the unread rest of a packet */

	struct lab_result res;	/* the RESULT line; the first failure fills it */
};

extern const char *const lab_keys[NKEYS];

/* serve.c: lookups of every key, then expire them; 0 ok, -1 failed */
int serve(struct lab *L);

/* kids.c */
pid_t spawn_client(struct lab *L, const char *path);
/*
 * The client's walk into path: stat(), statfs(), and a tmpfs there.
 * Its enum kid_exit; what went wrong goes to stderr, as prog.
 */
int client_walk(const char *prog, const char *path);
pid_t spawn_expirer(struct lab *L);
/*
 * fork(), counting the child among L->kids so that cleanup reaps it.
 * With all MAX_KIDS taken it starts none: -1, errno EAGAIN.
 */
pid_t kid_fork(struct lab *L);
/* Wait up to ms for a kid; 0 with *status set, or -1 if it had to be killed. */
int kid_wait(struct lab *L, pid_t pid, int ms, int *status);
/* Wait briefly for every kid, then SIGKILL what is left. */
void kids_reap_all(struct lab *L, int grace_ms);

/*
 * The first failure decides the RESULT: later calls change nothing.
 * lab_broken() is for the packet-size symptoms (leftover, stall, short,
 * garbled) with the sizes of the read that showed it; lab_error() for
 * everything else.
 */
__printf(4, 5) void lab_broken(struct lab *L, const char *cause,
			       const struct pkt_sizes *sz, const char *fmt, ...);
__printf(3, 4) void lab_error(struct lab *L, const char *cause, const char *fmt, ...);
/*
 * The run was cut short by the daemon's own watchdog or a stop signal:
 * that is the RESULT, an error with no sizes, whatever serve() met on the
 * way out (its words follow, after a colon).
 */
__printf(3, 4) void lab_cut_short(struct lab *L, const char *cause, const char *fmt, ...);

/* Always, after serving: CATATONIC, reap every child, unmount, close. */
void lab_cleanup(struct lab *L);
/* Fill the RESULT of the run from serve()'s return value. */
void lab_finish(struct lab *L, int rc);

#endif
