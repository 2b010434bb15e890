// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of serve.c, kids.c and lab.c: requests, answers,
 * expires and cleanup, against a fake kernel behind struct lab_ops.
 *
 * The fake holds the write end of the daemon's pipe and writes v5
 * packets into it as a 64-bit kernel does: 304 bytes, or 300 with the
 * 2012 compat trim.  Its children stand in for the client and the
 * expirer: each sleeps, like a request in autofs_wait(), until the
 * daemon answers its token, then exits with an enum kid_exit code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>

#include "daemon.h"
#include "kselftest_harness.h"
#include "lab-test.h"

#define TMO 1000	/* ms: a forked child must exit well within it */
#define FIRST_TOKEN 41	/* unlike any request number */

/* A child waiting for the daemon's answer. */
struct waiter {
	pid_t pid;
	autofs_wqt_t token;	/* of the packet it waits on, 0 if none */
	int release;		/* write end: 'R' for READY, 'F' for FAIL */
	int expirer;
};

/* The kernel as the daemon sees it. */
struct fake {
	struct lab lab;
	int pipe_w;			/* the kernel's end of the autofs pipe */
	size_t pkt_size;		/* bytes written per packet */
	const char *fail_mount;		/* the key whose tmpfs mount fails */
	int client_exit, expirer_exit;	/* enum kid_exit once READY */
	autofs_wqt_t next_token;
	int made[NKEYS], mounted[NKEYS];
	struct waiter w[MAX_KIDS];
	int nw;
	char log[512];			/* every call, in order */
};

static struct fake *to_fake(struct lab *L)
{
	return (struct fake *)((char *)L - offsetof(struct fake, lab));
}

static void note(struct fake *f, const char *fmt, ...)
{
	size_t n = strlen(f->log);
	va_list ap;

	if (n && n + 1 < sizeof(f->log)) {
		f->log[n++] = ' ';
		f->log[n] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(f->log + n, sizeof(f->log) - n, fmt, ap);
	va_end(ap);
}

static int key_of(struct fake *f, const char *path)
{
	for (int k = 0; k < NKEYS; k++)
		if (!strcmp(path, f->lab.sub[k]))
			return k;
	return -1;
}

/* How the log names a path: its key, "dir" for the autofs itself. */
static const char *name_of(struct fake *f, const char *path)
{
	int k = key_of(f, path);

	if (!strcmp(path, f->lab.dir))
		return "dir";
	return k < 0 ? path : lab_keys[k];
}

/*
 * A packet for key k on behalf of pid, as autofs_notify_daemon() fills it
 * (the fixture mounts the fake /auto as DEV and INO).
 */
static void fake_send(struct fake *f, int type, autofs_wqt_t token, int k, pid_t pid)
{
	union {
		struct autofs_v5_packet p;
		unsigned char b[WIDE];	/* the tail padding stays zero */
	} u;

	memset(&u, 0, sizeof(u));
	fill_pkt(&u.p, type, token, lab_keys[k], (unsigned int)pid);
	if (write(f->pipe_w, u.b, f->pkt_size) != (ssize_t)f->pkt_size)
		note(f, "(write failed)");
}

static void release(struct fake *f, struct waiter *w, char how)
{
	w->token = 0;
	if (write(w->release, &how, 1) != 1)
		note(f, "(child %d gone)", (int)w->pid);
}

/*
 * One expire per call of AUTOFS_IOC_EXPIRE_MULTI: the first key still
 * mounted; with none left the expirer's loop ends.
 */
static void expire_next(struct fake *f, struct waiter *w)
{
	for (int k = 0; k < NKEYS; k++) {
		if (!f->mounted[k])
			continue;
		w->token = f->next_token++;
		fake_send(f, autofs_ptype_expire_indirect, w->token, k, w->pid);
		return;
	}
	release(f, w, 'R');
}

/* A child that sleeps until answered, then exits as kids.c's would. */
static pid_t fake_child(struct fake *f, int expirer)
{
	struct waiter *w;
	int rel[2];
	pid_t pid;
	char how;

	if (f->nw == MAX_KIDS) {
		errno = EAGAIN;
		return -1;
	}
	if (pipe(rel) < 0)
		return -1;
	pid = kid_fork(&f->lab);
	if (pid == 0) {
		/* never outlive the test */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGALRM, SIG_DFL);
		alarm(30);
		/* as child_prepare(): none of the daemon's fds */
		close(rel[1]);
		for (int i = 0; i < f->nw; i++)
			close(f->w[i].release);
		close(f->pipe_w);
		close(f->lab.pipe_r);
		close(f->lab.ioctl_fd);
		if (read(rel[0], &how, 1) != 1)
			_exit(KID_ORPHAN);
		if (how == 'R')
			_exit(expirer ? f->expirer_exit : f->client_exit);
		_exit(expirer ? KID_EXPIRE_IOCTL : KID_STAT);
	}
	close(rel[0]);
	if (pid < 0) {
		close(rel[1]);
		return -1;
	}
	w = &f->w[f->nw++];
	*w = (struct waiter){ .pid = pid, .release = rel[1], .expirer = expirer };
	return pid;
}

static pid_t fake_spawn_client(struct lab *L, const char *path)
{
	struct fake *f = to_fake(L);
	int k = key_of(f, path);
	pid_t pid;

	note(f, "client:%s", name_of(f, path));
	pid = fake_child(f, 0);
	if (pid > 0 && k >= 0) {
		f->w[f->nw - 1].token = f->next_token++;
		fake_send(f, autofs_ptype_missing_indirect, f->w[f->nw - 1].token, k, pid);
	}
	return pid;
}

static pid_t fake_spawn_expirer(struct lab *L)
{
	struct fake *f = to_fake(L);
	pid_t pid;

	note(f, "expirer");
	pid = fake_child(f, 1);
	if (pid > 0)
		expire_next(f, &f->w[f->nw - 1]);
	return pid;
}

static int fake_ioctl(struct lab *L, unsigned long cmd, unsigned long arg)
{
	struct fake *f = to_fake(L);
	int ready = cmd == AUTOFS_IOC_READY;
	struct waiter *w = NULL;

	if (cmd == AUTOFS_IOC_CATATONIC) {
		/* as 6.1: a killable sleeper stays asleep, see kids_reap_all() */
		note(f, "CATATONIC");
		return 0;
	}
	if (!ready && cmd != AUTOFS_IOC_FAIL) {
		note(f, "ioctl:%#lx", cmd);
		errno = ENOTTY;
		return -1;
	}
	note(f, "%s:%lu", ready ? "READY" : "FAIL", arg);
	for (int i = 0; i < f->nw; i++)
		if (f->w[i].token && f->w[i].token == arg)
			w = &f->w[i];
	if (!w) {
		errno = EINVAL;	/* autofs_wait_release(): no such token */
		return -1;
	}
	if (w->expirer && ready)
		expire_next(f, w);
	else
		release(f, w, ready ? 'R' : 'F');
	return 0;
}

static int fake_mkdir(struct lab *L, const char *path, mode_t mode)
{
	struct fake *f = to_fake(L);
	int k = key_of(f, path);

	note(f, "mkdir:%s", name_of(f, path));
	if (k < 0) {
		errno = EACCES;
		return -1;
	}
	if (f->made[k]) {
		errno = EEXIST;
		return -1;
	}
	f->made[k] = 1;
	return 0;
}

static int fake_rmdir(struct lab *L, const char *path)
{
	struct fake *f = to_fake(L);
	int k = key_of(f, path);

	note(f, "rmdir:%s", name_of(f, path));
	if (k < 0 || !f->made[k] || f->mounted[k]) {
		errno = k < 0 || !f->made[k] ? ENOENT : EBUSY;
		return -1;
	}
	f->made[k] = 0;
	return 0;
}

static int fake_mount(struct lab *L, const char *src, const char *target,
		      const char *fstype, unsigned long flags, const char *opts)
{
	struct fake *f = to_fake(L);
	int k = key_of(f, target);

	if (k < 0 || !f->made[k] || f->mounted[k] || strcmp(src, "tmpfs") ||
	    strcmp(fstype, "tmpfs") || flags || !opts) {
		note(f, "mount:%s=EINVAL", name_of(f, target));
		errno = EINVAL;
		return -1;
	}
	if (f->fail_mount && !strcmp(f->fail_mount, lab_keys[k])) {
		note(f, "mount:%s=ENODEV", lab_keys[k]);
		errno = ENODEV;
		return -1;
	}
	note(f, "mount:%s", lab_keys[k]);
	f->mounted[k] = 1;
	return 0;
}

static int fake_umount(struct lab *L, const char *target, int flags)
{
	struct fake *f = to_fake(L);
	const char *how = flags & MNT_DETACH ? "umount-l" : "umount";
	int k = key_of(f, target);

	if (!strcmp(target, L->dir)) {
		/* the autofs is busy while a key is mounted on it */
		if (!(flags & MNT_DETACH) && (f->mounted[0] || f->mounted[1])) {
			note(f, "%s:dir=EBUSY", how);
			errno = EBUSY;
			return -1;
		}
		note(f, "%s:dir", how);
		return 0;
	}
	if (k < 0 || !f->mounted[k]) {
		note(f, "%s:%s=EINVAL", how, name_of(f, target));
		errno = EINVAL;
		return -1;
	}
	note(f, "%s:%s", how, lab_keys[k]);
	f->mounted[k] = 0;
	return 0;
}

static const struct lab_ops fake_ops = {
	.ioctl = fake_ioctl,
	.mount = fake_mount,
	.umount = fake_umount,
	.mkdir = fake_mkdir,
	.rmdir = fake_rmdir,
	.spawn_client = fake_spawn_client,
	.spawn_expirer = fake_spawn_expirer,
};

static int fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0 || errno != EBADF;
}

/* A daemon run as main() makes it, and what it left behind. */
struct run {
	int rc;				/* serve()'s */
	int pipe_r, ioctl_fd;		/* the daemon's fds, as set up */
	int pipe_r_open, ioctl_fd_open;	/* after cleanup */
	int children_left;		/* after cleanup */
	char line[RESULT_LINE_MAX];
	char err[8192];			/* the daemon's stderr */
};

FIXTURE(serve) {
	struct fake f;
	struct run run;
};

/* What one build of the daemon must show. */
struct outcome {
	const char *calls;	/* what the fake kernel saw, in order */
	const char *result;	/* in the RESULT line, from verdict= on */
	const char *err;	/* in the daemon's stderr, if not NULL */
};

FIXTURE_VARIANT(serve) {
	const struct reader *reader;
	size_t pkt_size;		/* per packet; 0 means sizeof as built */
	const char *fail_mount;		/* the key whose tmpfs mount fails */
	int client_exit, expirer_exit;	/* enum kid_exit once READY */
	bool uname_x86_64;		/* the reader asks uname */
	struct outcome abi32, abi64;	/* the i386 and x86_64 builds */
};

#define BOTH(...) .abi32 = { __VA_ARGS__ }, .abi64 = { __VA_ARGS__ }

/* The calls of a run that serves everything, and of cleanup after it. */
#define LOOKUP_A "client:a mkdir:a mount:a READY:41"
#define SERVED_ALL LOOKUP_A " client:b mkdir:b mount:b READY:42 " \
	"expirer umount:a rmdir:a READY:43 umount:b rmdir:b READY:44"
#define CLEANUP "CATATONIC umount:dir"
#define BLOCKED "still there"	/* a client never answered, killed */

/* Step 2 for i386; x86_64 refuses the trimmed packet. */
FIXTURE_VARIANT_ADD(serve, systemd_given_300) {
	.reader = &reader_systemd_style, .pkt_size = COMPAT,
	.abi32 = { SERVED_ALL " " CLEANUP,
		   "verdict=ok cause=none packets=4 queued=300 want=300 got=300 detail=\"4 requests; 300-byte packets, each read whole\"",
	},
	.abi64 = { "client:a " CLEANUP,
		   "verdict=broken cause=short packets=1 queued=300 want=304 got=300 detail=\"request 1: read 300 bytes, expected 304\"",
		   BLOCKED },
};

/* Step 1: the i386 daemon meets the 4 bytes of tail padding. */
FIXTURE_VARIANT_ADD(serve, systemd_given_304) {
	.reader = &reader_systemd_style, .pkt_size = WIDE,
	.abi32 = { LOOKUP_A " CATATONIC umount:a umount:dir",
		   "verdict=broken cause=leftover packets=2 queued=4 want=300 got=4 detail=\"request 2: read 4 bytes, expected 300 (tail padding of the previous 304-byte packet); the previous packet left 4 bytes in the pipe\"",
		   "pipe readable before request 2 was triggered" },
	.abi64 = { SERVED_ALL " " CLEANUP,
		   "verdict=ok cause=none packets=4 queued=304 want=304 got=304 detail=\"4 requests; 304-byte packets, each read whole\"",
	},
};

/* Step 2 for automount on an x86_64 kernel: it waits for 4 more bytes. */
FIXTURE_VARIANT_ADD(serve, automount_given_300) {
	.reader = &reader_automount_style, .pkt_size = COMPAT, .uname_x86_64 = true,
	BOTH("client:a " CLEANUP,
	     "verdict=broken cause=stall packets=1 queued=300 want=304 got=300 detail=\"request 1: stalled after 300 of 304 bytes (",
	     BLOCKED),
};

FIXTURE_VARIANT_ADD(serve, automount_given_304) {
	.reader = &reader_automount_style, .pkt_size = WIDE, .uname_x86_64 = true,
	BOTH(SERVED_ALL " " CLEANUP,
	     "verdict=ok cause=none packets=4 queued=304 want=304 got=304 detail=\"4 requests; 304-byte packets, each read whole\"",
	),
};

FIXTURE_VARIANT_ADD(serve, mount_fails) {
	.reader = &reader_systemd_style, .fail_mount = "a",
	BOTH("client:a mkdir:a mount:a=ENODEV FAIL:41 " CLEANUP,
	     "verdict=error cause=mount packets=1 queued=- want=- got=- detail=\"request 1: mount tmpfs on /lab-fake/auto/a: No such device\"",
	),
};

FIXTURE_VARIANT_ADD(serve, client_not_tmpfs) {
	.reader = &reader_systemd_style, .client_exit = KID_NOT_TMPFS,
	BOTH(LOOKUP_A " CATATONIC umount:a umount:dir",
	     "verdict=error cause=client packets=1 queued=- want=- got=- detail=\"request 1: client exited with 3: its key is not a tmpfs\"",
	),
};

FIXTURE_VARIANT_ADD(serve, expirer_too_few) {
	.reader = &reader_systemd_style, .expirer_exit = KID_EXPIRE_FEW,
	BOTH(SERVED_ALL " " CLEANUP,
	     "verdict=error cause=expire packets=4 queued=- want=- got=- detail=\"expirer exited with 6: nothing was left to expire before every key expired\"",
	),
};

/* A daemon after setup(): autofs mounted, the kernel holds the write end. */
FIXTURE_SETUP(serve)
{
	struct fake *f = &self->f;
	struct lab *L = &f->lab;
	int fds[2];

	signal(SIGPIPE, SIG_IGN);	/* as the daemon: EPIPE, not death */
	L->ops = &fake_ops;
	L->prog = "test-serve";
	L->reader = variant->reader;
	L->timeout_ms = TMO;
	snprintf(L->dir, sizeof(L->dir), "/lab-fake/auto");
	for (int k = 0; k < NKEYS; k++)
		snprintf(L->sub[k], sizeof(L->sub[k]), "%.250s/%s", L->dir, lab_keys[k]);
	L->root_dev = DEV;
	L->root_ino = INO;
	L->daemon_pid = getpid();
	result_init(&L->res, 1, L->reader->name, LAB_ABI);
	L->pipe_r = L->pipe_w = L->ioctl_fd = -1;
	f->pipe_w = -1;

	ASSERT_EQ(0, pipe(fds));
	L->pipe_r = self->run.pipe_r = fds[0];
	f->pipe_w = fds[1];
	ASSERT_EQ(0, fcntl(L->pipe_r, F_SETFL, O_NONBLOCK));
	L->ioctl_fd = self->run.ioctl_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, L->ioctl_fd);
	L->autofs_mounted = 1;

	f->pkt_size = variant->pkt_size ?: NATIVE;
	f->fail_mount = variant->fail_mount;
	f->client_exit = variant->client_exit;
	f->expirer_exit = variant->expirer_exit;
	f->next_token = FIRST_TOKEN;
}

/* Only what a failed test left behind. */
FIXTURE_TEARDOWN(serve)
{
	struct fake *f = &self->f;
	struct lab *L = &f->lab;

	for (int i = 0; i < L->nkids; i++) {
		kill(L->kids[i], SIGKILL);
		waitpid(L->kids[i], NULL, 0);
	}
	for (int i = 0; i < f->nw; i++)
		if (f->w[i].release >= 0)
			close(f->w[i].release);
	if (f->pipe_w >= 0)
		close(f->pipe_w);
	if (L->pipe_r >= 0)
		close(L->pipe_r);
	if (L->ioctl_fd >= 0)
		close(L->ioctl_fd);
}

/* serve(), cleanup and the verdict, as main() runs them; stderr kept. */
static void run_daemon(struct __test_metadata *_metadata, struct lab *L, struct run *run)
{
	FILE *cap = tmpfile();
	int saved;
	ssize_t n;

	ASSERT_TRUE(cap != NULL);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	ASSERT_LE(0, saved);
	ASSERT_LE(0, dup2(fileno(cap), STDERR_FILENO));

	run->rc = serve(L);
	lab_cleanup(L);
	/* before anything else can reuse the numbers */
	run->pipe_r_open = fd_open(run->pipe_r);
	run->ioctl_fd_open = fd_open(run->ioctl_fd);
	run->children_left = waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD;
	lab_finish(L, run->rc);

	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fileno(cap), run->err, sizeof(run->err) - 1, 0);
	run->err[n > 0 ? n : 0] = '\0';
	fclose(cap);
	result_format(run->line, sizeof(run->line), &L->res);
	run->line[strcspn(run->line, "\n")] = '\0';
}

TEST_F(serve, run)
{
	const struct outcome *want = NATIVE == 300 ? &variant->abi32 : &variant->abi64;
	struct lab *L = &self->f.lab;

	if (variant->uname_x86_64 && !host_is_x86_64())
		SKIP(return, "the reader asks uname, and the host's is not x86_64");
	run_daemon(_metadata, L, &self->run);

	EXPECT_STREQ(want->calls, self->f.log);
	EXPECT_HAS(self->run.line, want->result);
	EXPECT_EQ(!strncmp(want->result, "verdict=ok ", 11), self->run.rc == 0);
	if (want->err) {
		/* braces: an EXPECT is two statements, the check and its log */
		EXPECT_HAS(self->run.err, want->err);
	}

	/* cleanup, whatever happened: no child, no fd, no mount */
	EXPECT_EQ(0, L->nkids);
	EXPECT_FALSE(self->run.children_left);
	EXPECT_EQ(-1, L->pipe_r);
	EXPECT_EQ(-1, L->pipe_w);
	EXPECT_EQ(-1, L->ioctl_fd);
	EXPECT_FALSE(self->run.pipe_r_open);
	EXPECT_FALSE(self->run.ioctl_fd_open);
	EXPECT_FALSE(L->autofs_mounted);
	for (int k = 0; k < NKEYS; k++) {
		EXPECT_FALSE(L->sub_mounted[k]) TH_LOG("key %s", lab_keys[k]);
		EXPECT_FALSE(self->f.mounted[k]) TH_LOG("key %s", lab_keys[k]);
	}

	if (!_metadata->passed) {
		char *save, *l = strtok_r(self->run.err, "\n", &save);

		TH_LOG("RESULT: %s", self->run.line);
		for (; l; l = strtok_r(NULL, "\n", &save))
			TH_LOG("stderr: %s", l);
	}
}

/*
 * Every child kids.c starts is counted, or it starts none: one that
 * cleanup cannot find would outlive the daemon.
 */
TEST(kids_never_lost)
{
	struct lab L = { .prog = "test-serve", .pipe_r = -1, .pipe_w = -1, .ioctl_fd = -1 };
	pid_t pid = 0;
	int n;

	L.daemon_pid = getpid();
	for (n = 0; n <= MAX_KIDS; n++) {
		pid = kid_fork(&L);
		if (pid == 0)
			_exit(KID_OK);
		if (pid < 0)
			break;
	}
	EXPECT_EQ(MAX_KIDS, n);
	EXPECT_EQ(-1, pid);
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(MAX_KIDS, L.nkids);

	kids_reap_all(&L, TMO);
	EXPECT_EQ(0, L.nkids);
	EXPECT_EQ(-1, waitpid(-1, NULL, WNOHANG));
	EXPECT_EQ(ECHILD, errno);
}

/*
 * The client's walk, which a caller of another ABI (client.c) makes too:
 * a tmpfs is success; a missing key, or one that is not a tmpfs, is the
 * exit status serve.c explains.  /dev/shm is a tmpfs on any Debian host;
 * the directory the test runs in is not, unless the host put it on one.
 */
TEST(client_walks_into_a_tmpfs)
{
	struct statfs sf;

	ASSERT_EQ(0, statfs("/dev/shm", &sf));
	if ((unsigned long)sf.f_type != TMPFS_MAGIC)
		SKIP(return, "/dev/shm is not a tmpfs here");
	EXPECT_EQ(KID_OK, client_walk("test-serve", "/dev/shm"));
	EXPECT_EQ(KID_STAT, client_walk("test-serve", "/dev/shm/no-such-key-of-the-lab"));
	ASSERT_EQ(0, statfs("/", &sf));
	if ((unsigned long)sf.f_type != TMPFS_MAGIC)
		EXPECT_EQ(KID_NOT_TMPFS, client_walk("test-serve", "/"));
}

TEST_HARNESS_MAIN
