// SPDX-License-Identifier: GPL-2.0
/*
 * The processes that make the kernel talk: a client that walks into
 * dir/<key> from its own process group (so the kernel does not take it
 * for the daemon), and an expirer that asks for expires.  All bounded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "daemon.h"

/* Common child setup: default signals, a death timer, no daemon fds. */
static void child_prepare(struct lab *L, int keep_ioctl_fd)
{
	signal(SIGALRM, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	/* a blocked request sleeps killable: never outlive the daemon */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != L->daemon_pid)
		_exit(KID_ORPHAN);
	alarm((unsigned int)(L->timeout_ms * 4 / 1000 + 5));
	if (L->pipe_r >= 0)
		close(L->pipe_r);
	if (!keep_ioctl_fd && L->ioctl_fd >= 0)
		close(L->ioctl_fd);
}

pid_t kid_fork(struct lab *L)
{
	pid_t pid;

	if (L->nkids >= MAX_KIDS) {
		fprintf(stderr, "%s: %d children already: refusing to start one more, which cleanup could not reap\n",
			L->prog, L->nkids);
		errno = EAGAIN;
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid > 0)
		L->kids[L->nkids++] = pid;
	return pid;
}

int client_walk(const char *prog, const char *path)
{
	struct stat st;
	struct statfs sf;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: client %d: stat %s: %s\n", prog,
			(int)getpid(), path, strerror(errno));
		return KID_STAT;
	}
	if (statfs(path, &sf) < 0) {
		fprintf(stderr, "%s: client %d: statfs %s: %s\n", prog,
			(int)getpid(), path, strerror(errno));
		return KID_STATFS;
	}
	if ((unsigned long)sf.f_type != TMPFS_MAGIC) {
		fprintf(stderr, "%s: client %d: %s has f_type 0x%lx, not tmpfs\n",
			prog, (int)getpid(), path, (unsigned long)sf.f_type);
		return KID_NOT_TMPFS;
	}
	fprintf(stderr, "%s: client %d: %s is a tmpfs\n", prog, (int)getpid(), path);
	return KID_OK;
}

pid_t spawn_client(struct lab *L, const char *path)
{
	pid_t pid;

	pid = kid_fork(L);
	if (pid != 0)
		return pid;

	child_prepare(L, 0);
	/* out of the daemon's pgrp, or the kernel treats us as the daemon */
	if (setpgid(0, 0) < 0) {
		fprintf(stderr, "%s: client: setpgid: %s\n", L->prog, strerror(errno));
		_exit(KID_SETPGID);
	}
	if (L->caller) {
		/* the walk by a process of another ABI: the kernel sees its syscalls */
		execl(L->caller, "client", path, (char *)NULL);
		fprintf(stderr, "%s: client: exec %s: %s\n", L->prog, L->caller, strerror(errno));
		_exit(KID_EXEC);
	}
	_exit(client_walk(L->prog, path));
}

pid_t spawn_expirer(struct lab *L)
{
	int how = AUTOFS_EXP_IMMEDIATE, done = 0;
	pid_t pid;

	pid = kid_fork(L);
	if (pid != 0)
		return pid;

	child_prepare(L, 1);
	/* stays in the daemon's pgrp: expire is the daemon's own business */
	for (;;) {
		if (ioctl(L->ioctl_fd, AUTOFS_IOC_EXPIRE_MULTI, &how) == 0) {
			if (++done > NKEYS) {
				fprintf(stderr, "%s: expirer: expire %d of %d keys\n",
					L->prog, done, NKEYS);
				_exit(KID_EXPIRE_MANY);
			}
			continue;
		}
		if (errno == EAGAIN) {	/* nothing left to expire */
			if (done == NKEYS)
				_exit(KID_OK);
			fprintf(stderr, "%s: expirer: nothing left after %d expires of %d keys\n",
				L->prog, done, NKEYS);
			_exit(KID_EXPIRE_FEW);
		}
		fprintf(stderr, "%s: expirer: AUTOFS_IOC_EXPIRE_MULTI: %s\n",
			L->prog, strerror(errno));
		_exit(KID_EXPIRE_IOCTL);
	}
}

static void forget(struct lab *L, pid_t pid)
{
	for (int i = 0; i < L->nkids; i++)
		if (L->kids[i] == pid) {
			L->kids[i] = L->kids[--L->nkids];
			return;
		}
}

/* Poll waitpid() so no wait can hang the daemon. */
static int wait_bounded(pid_t pid, int ms, int *status)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int waited = 0;; waited += 10) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD))
			return r == pid ? 0 : -1;
		if (waited >= ms)
			return -1;
		nanosleep(&tick, NULL);
	}
}

int kid_wait(struct lab *L, pid_t pid, int ms, int *status)
{
	if (wait_bounded(pid, ms, status) == 0) {
		forget(L, pid);
		return 0;
	}
	kill(pid, SIGKILL);
	wait_bounded(pid, 1000, status);
	forget(L, pid);
	return -1;
}

/*
 * After AUTOFS_IOC_CATATONIC.  6.1 wakes the waiters of a catatonic mount
 * with wake_up_interruptible(), but autofs_wait() sleeps killable, so a
 * client still blocked there only leaves with SIGKILL.
 */
void kids_reap_all(struct lab *L, int grace_ms)
{
	int status;

	while (L->nkids > 0) {
		pid_t pid = L->kids[0];

		if (kid_wait(L, pid, grace_ms, &status) < 0)
			fprintf(stderr, "%s: child %d still there %d ms after CATATONIC, killed: an unanswered request sleeps killable in autofs_wait(), CATATONIC does not wake it\n",
				L->prog, (int)pid, grace_ms);
	}
}

static const char *kid_exit_text(int code)
{
	switch (code) {
	case KID_OK: return "success";
	case KID_STAT: return "stat() of its key failed";
	case KID_STATFS: return "statfs() of its key failed";
	case KID_NOT_TMPFS: return "its key is not a tmpfs";
	case KID_SETPGID: return "it could not leave the daemon's process group";
	case KID_ORPHAN: return "the daemon was gone when it started";
	case KID_EXPIRE_FEW: return "nothing was left to expire before every key expired";
	case KID_EXPIRE_MANY: return "more keys expired than were mounted";
	case KID_EXPIRE_IOCTL: return "AUTOFS_IOC_EXPIRE_MULTI failed";
	case KID_EXEC: return "the caller of another ABI (--caller) could not be run";
	case KID_USAGE: return "the caller of another ABI was not given one path";
	}
	return "an exit status no child of the lab uses";
}

void describe_status(const char *who, int status, char *out, size_t len)
{
	if (WIFEXITED(status))
		snprintf(out, len, "%s exited with %d: %s", who, WEXITSTATUS(status),
			 kid_exit_text(WEXITSTATUS(status)));
	else if (WIFSIGNALED(status))
		snprintf(out, len, "%s killed by signal %d", who, WTERMSIG(status));
	else
		snprintf(out, len, "%s ended with status 0x%x", who, status);
}
