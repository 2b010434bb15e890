// SPDX-License-Identifier: GPL-2.0
/*
 * An autofs v5 daemon in miniature.  Built twice, once per reading
 * strategy (-DREADER=reader_systemd_style or reader_automount_style).
 * One RESULT line on stdout (result.c); everything else on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

#ifndef READER
#error "build with -DREADER=reader_systemd_style or -DREADER=reader_automount_style"
#endif

/*
 * The real kernel and the real children (kids.c), for serve() and
 * lab_cleanup(); the host tests put a fake in their place.
 */
static int real_ioctl(struct lab *L, unsigned long cmd, unsigned long arg)
{
	return ioctl(L->ioctl_fd, cmd, arg);
}

static int real_mount(struct lab *L, const char *src, const char *target,
		      const char *fstype, unsigned long flags, const char *opts)
{
	(void)L;
	return mount(src, target, fstype, flags, opts);
}

static int real_umount(struct lab *L, const char *target, int flags)
{
	(void)L;
	return umount2(target, flags);
}

static int real_mkdir(struct lab *L, const char *path, mode_t mode)
{
	(void)L;
	return mkdir(path, mode);
}

static int real_rmdir(struct lab *L, const char *path)
{
	(void)L;
	return rmdir(path);
}

static const struct lab_ops real_ops = {
	.ioctl = real_ioctl,
	.mount = real_mount,
	.umount = real_umount,
	.mkdir = real_mkdir,
	.rmdir = real_rmdir,
	.spawn_client = spawn_client,
	.spawn_expirer = spawn_expirer,
};

static struct lab lab = {
	.ops = &real_ops, .pipe_r = -1, .pipe_w = -1, .ioctl_fd = -1,
};
static volatile sig_atomic_t watchdog_fired, stop_signal;
static char emergency_line[RESULT_LINE_MAX];	/* written by a signal handler */

/* Second watchdog tick: the normal cleanup itself hung.  Only syscalls. */
static void emergency(void)
{
	if (lab.ioctl_fd >= 0)
		ioctl(lab.ioctl_fd, AUTOFS_IOC_CATATONIC, 0);
	for (int i = 0; i < lab.nkids; i++)
		kill(lab.kids[i], SIGKILL);
	for (int k = 0; k < NKEYS; k++)
		if (lab.sub_mounted[k])
			umount2(lab.sub[k], MNT_DETACH);
	if (lab.ioctl_fd >= 0)
		close(lab.ioctl_fd);
	if (lab.autofs_mounted)
		umount2(lab.dir, MNT_DETACH);
	if (write(STDOUT_FILENO, emergency_line, strlen(emergency_line)) < 0)
		_exit(2);
	_exit(2);
}

static void on_signal(int sig)
{
	if (sig == SIGALRM) {
		if (watchdog_fired)
			emergency();
		watchdog_fired = 1;
		alarm(2);	/* grace for the orderly cleanup */
	} else {
		stop_signal = sig;
	}
	lab_stop = 1;
}

static void install_signals(int watchdog_s)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	sigset_t stop;

	lab_stop_signals(&stop);
	sa.sa_mask = stop;	/* one handler at a time */
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	alarm((unsigned int)watchdog_s);
}

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/*
 * pgrp= of the topmost autofs mounted on dir, 0 if there is none, -1 if
 * it has no readable pgrp= option.
 */
static int autofs_pgrp_on(const char *dir)
{
	char line[512], mnt[256], type[32], opts[256];
	FILE *f = fopen("/proc/self/mounts", "r");
	const char *p;
	long v;
	int pgrp = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %255s %31s %255s", mnt, type, opts) != 3 ||
		    strcmp(mnt, dir))
			continue;
		pgrp = 0;
		if (!strcmp(type, "autofs")) {
			p = strstr(opts, "pgrp=");
			v = p ? strtol(p + 5, NULL, 10) : -1;
			pgrp = v > 0 && v < INT_MAX ? (int)v : -1;
		}
	}
	fclose(f);
	return pgrp;
}

/*
 * An autofs left by a daemon that was killed before its cleanup (its
 * process group is gone) would sit under ours forever: detach it.  One
 * whose daemon lives is not ours: mounting over it would send its
 * clients to us, and walking into it would block us.  Returns that pgrp.
 */
static int clear_stale_autofs(struct lab *L)
{
	int pgrp;

	while ((pgrp = autofs_pgrp_on(L->dir)) != 0) {
		if (pgrp > 0 && (kill(-pgrp, 0) == 0 || errno != ESRCH))
			return pgrp;
		/* still listed once its pgrp is dead: nobody will unmount it */
		if (autofs_pgrp_on(L->dir) != pgrp)
			continue;
		fprintf(stderr, "%s: detaching a stale autofs on %s (pgrp %d is gone)\n",
			L->prog, L->dir, pgrp);
		if (umount2(L->dir, MNT_DETACH) < 0)
			break;
	}
	return 0;
}

/* A failed setup step decides the RESULT: -1, for setup() to return. */
static __printf(3, 4) int setup_fail(struct lab *L, const char *cause, const char *fmt, ...)
{
	char why[RESULT_DETAIL_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	lab_error(L, cause, "%s", why);
	return -1;
}

static int setup(struct lab *L)
{
	char opts[128];
	struct stat st;
	int fds[2], proto = 0, busy;
	unsigned long tmo = 60;	/* seconds; expires here are forced anyway */

	if (pipe(fds) < 0)	/* plain pipe: packet mode is the kernel's call */
		return setup_fail(L, "setup", "pipe: %s", strerror(errno));
	L->pipe_r = fds[0];
	L->pipe_w = fds[1];
	if (mkdir_p(L->dir) < 0)
		return setup_fail(L, "setup", "mkdir %s: %s", L->dir, strerror(errno));
	busy = clear_stale_autofs(L);
	if (busy)
		return setup_fail(L, "setup",
				  "%s is in use by the autofs daemon of process group %d",
				  L->dir, busy);
	snprintf(opts, sizeof(opts), "fd=%d,pgrp=%d,minproto=5,maxproto=5,indirect",
		 L->pipe_w, (int)getpgrp());
	if (mount("lab", L->dir, "autofs", 0, opts) < 0)
		return setup_fail(L, "mount", "mount autofs on %s (%s): %s", L->dir, opts,
				  strerror(errno));
	L->autofs_mounted = 1;
	/* the kernel holds its own reference; ours would hide EOF */
	close(L->pipe_w);
	L->pipe_w = -1;
	/* poll() decides when to read */
	if (fcntl(L->pipe_r, F_SETFL, O_NONBLOCK) < 0)
		return setup_fail(L, "setup", "fcntl O_NONBLOCK: %s", strerror(errno));

	L->ioctl_fd = open(L->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (L->ioctl_fd < 0)
		return setup_fail(L, "setup", "open %s: %s", L->dir, strerror(errno));
	if (fstat(L->ioctl_fd, &st) < 0)
		return setup_fail(L, "setup", "fstat %s: %s", L->dir, strerror(errno));
	L->root_dev = (unsigned int)st.st_dev;	/* packets carry new_encode_dev() */
	L->root_ino = (unsigned long long)st.st_ino;
	if (ioctl(L->ioctl_fd, AUTOFS_IOC_PROTOVER, &proto) < 0)
		return setup_fail(L, "setup", "AUTOFS_IOC_PROTOVER: %s", strerror(errno));
	if (proto != 5)
		return setup_fail(L, "setup", "kernel speaks autofs protocol %d, not 5", proto);
	if (ioctl(L->ioctl_fd, AUTOFS_IOC_SETTIMEOUT, &tmo) < 0)
		return setup_fail(L, "setup", "AUTOFS_IOC_SETTIMEOUT: %s", strerror(errno));
	fprintf(stderr, "%s: autofs on %s (%s), protocol %d, root dev 0x%x ino %llu\n",
		L->prog, L->dir, opts, proto, L->root_dev, L->root_ino);
	return 0;
}

static void print_usage(const char *prog, FILE *f)
{
	fprintf(f, "usage: %s --step N --timeout-ms MS --watchdog-s S [--dir /auto] [--comm NAME] [--caller ABI]\n",
		prog);
	fprintf(f, "  --step N        the lab step this run belongs to (0-99), for the RESULT line\n"
		"  --timeout-ms    how long to wait for each packet and each child (lab.read_ms)\n"
		"  --watchdog-s    the whole run's limit (lab.watchdog)\n"
		"  --dir           where to mount the autofs (/auto)\n"
		"  --comm NAME     the name the kernel sees (prctl PR_SET_NAME)\n"
		"  --caller ABI    the lookups come from /lab/ABI/client, a program of that ABI,\n"
		"                  and the RESULT line's reader is this program's name +ABI\n");
}

static __printf(2, 3) int usage_error(struct lab *L, const char *fmt, ...)
{
	char why[RESULT_DETAIL_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", L->prog, why);
	print_usage(L->prog, stderr);
	lab_error(L, "usage", "%s", why);
	return result_print(&L->res);
}

static volatile sig_atomic_t parent_stop;

static void parent_on_signal(int sig)
{
	parent_stop = sig;
}

/*
 * setsid() refuses a process group leader, as a program started by an
 * interactive shell is: then serve from a child in its own session.  The
 * parent passes a stop signal on and waits at most limit_s.  Returns -1
 * in the process that goes on to serve, else the exit status to end with.
 */
static int own_session(struct lab *L, int limit_s)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	struct sigaction sa = { .sa_handler = parent_on_signal };
	int status, sent = 0;
	long waited_ms = 0;
	pid_t pid, r;

	if (setsid() >= 0)
		return -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (setsid() >= 0)
			return -1;
		lab_error(L, "setup", "setsid in a child: %s", strerror(errno));
		_exit(result_print(&L->res));
	}
	if (pid < 0) {
		lab_error(L, "setup", "fork for a session of our own: %s", strerror(errno));
		return result_print(&L->res);
	}
	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			lab_error(L, "setup", "waitpid: %s", strerror(errno));
			return result_print(&L->res);
		}
		if (parent_stop && !sent) {
			kill(pid, parent_stop);	/* the child cleans up and reports */
			sent = 1;
		}
		if (waited_ms > (limit_s + 5) * 1000L) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			lab_error(L, "watchdog", "the serving child did not end within %d s", limit_s + 5);
			return result_print(&L->res);
		}
		nanosleep(&tick, NULL);
		waited_ms += 50;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);	/* it printed its RESULT */
	lab_error(L, "crash", "the serving child was killed by signal %d", WTERMSIG(status));
	return result_print(&L->res);
}

/* --caller ABI: where its client is, and the reader it makes of us */
static char caller_path[64], caller_reader[48];

static int set_caller(struct lab *L, const char *abi)
{
	size_t n = strspn(abi, "abcdefghijklmnopqrstuvwxyz0123456789_");

	if (!n || abi[n] || n > 15)
		return -1;
	snprintf(caller_path, sizeof(caller_path), "/lab/%s/client", abi);
	snprintf(caller_reader, sizeof(caller_reader), "%s+%s", L->reader->name, abi);
	L->caller = caller_path;
	L->res.reader = caller_reader;
	return 0;
}

int main(int argc, char **argv)
{
	struct lab *L = &lab;
	const char *comm_set = NULL, *dir = "/auto";
	int rc, watchdog_s = 0, have_step = 0;

	L->prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	L->reader = &READER;
	result_init(&L->res, 0, L->reader->name, LAB_ABI);
	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "--help")) {
			print_usage(L->prog, stdout);
			return 0;
		}
		if (strcmp(opt, "--step") && strcmp(opt, "--dir") && strcmp(opt, "--timeout-ms") &&
		    strcmp(opt, "--watchdog-s") && strcmp(opt, "--comm") && strcmp(opt, "--caller"))
			return usage_error(L, "unknown option %s", opt);
		if (!v)
			return usage_error(L, "%s needs a value", opt);
		if (!strcmp(opt, "--step")) {
			if (result_parse_num(v, 0, 99, &L->res.step) < 0)
				return usage_error(L, "--step %s: not a step number (0-99)", v);
			have_step = 1;
		} else if (!strcmp(opt, "--dir")) {
			if (v[0] != '/' || strlen(v) >= sizeof(L->dir) - 8)
				return usage_error(L, "--dir %s: must be absolute and short", v);
			dir = v;
		} else if (!strcmp(opt, "--timeout-ms")) {
			if (result_parse_num(v, 1, 60000, &L->timeout_ms) < 0)
				return usage_error(L, "--timeout-ms %s: not 1..60000", v);
		} else if (!strcmp(opt, "--watchdog-s")) {
			if (result_parse_num(v, 1, 3600, &watchdog_s) < 0)
				return usage_error(L, "--watchdog-s %s: not 1..3600", v);
		} else if (!strcmp(opt, "--caller")) {
			if (set_caller(L, v) < 0)
				return usage_error(L, "--caller %s: not an ABI name", v);
		} else {
			comm_set = v;	/* --comm: step 3 cares what the kernel calls us */
		}
		i++;
	}
	/* no default for a limit: init.sh passes the kernel command line's */
	if (!have_step)
		return usage_error(L, "--step is required");
	if (!L->timeout_ms)
		return usage_error(L, "--timeout-ms is required (init.sh passes lab.read_ms)");
	if (!watchdog_s)
		return usage_error(L, "--watchdog-s is required (init.sh passes lab.watchdog)");
	snprintf(L->dir, sizeof(L->dir), "%s", dir);
	for (int k = 0; k < NKEYS; k++)
		snprintf(L->sub[k], sizeof(L->sub[k]), "%.250s/%s", L->dir, lab_keys[k]);
	if (comm_set)
		prctl(PR_SET_NAME, comm_set);

	/* the kernel sends no requests to processes in the mount's pgrp */
	rc = own_session(L, watchdog_s);
	if (rc >= 0)
		return rc;

	{
		struct lab_result e = L->res;

		e.cause = "watchdog";
		snprintf(e.detail, sizeof(e.detail), "no result after %d s; emergency cleanup",
			 watchdog_s + 2);
		result_format(emergency_line, sizeof(emergency_line), &e);
	}
	install_signals(watchdog_s);

	L->daemon_pid = getpid();
	rc = setup(L) < 0 ? -1 : serve(L);
	if (watchdog_fired || stop_signal) {
		if (watchdog_fired)
			lab_cut_short(L, "watchdog", "watchdog after %d s", watchdog_s);
		else
			lab_cut_short(L, "signal", "stopped by signal %d", (int)stop_signal);
		rc = -1;
	}
	lab_cleanup(L);
	alarm(0);	/* done: no emergency line after the real one */

	lab_finish(L, rc);
	return result_print(&L->res);
}
