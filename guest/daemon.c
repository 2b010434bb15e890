/* An autofs v5 daemon in miniature.  Built twice, once per reading
 * strategy (-DREADER=reader_systemd_style or reader_automount_style).
 * One RESULT line on stdout; everything else on stderr. */
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
#include <unistd.h>

#include "daemon.h"

#ifndef READER
#error "build with -DREADER=reader_systemd_style or -DREADER=reader_automount_style"
#endif

static struct lab lab = { .pipe_r = -1, .pipe_w = -1, .ioctl_fd = -1 };
static volatile sig_atomic_t watchdog_fired, stop_signal;
static char emergency_line[512];	/* prepared early: async-signal-safe to write */

void lab_fail(struct lab *L, const char *fmt, ...)
{
	va_list ap;

	if (L->detail[0])
		return;
	va_start(ap, fmt);
	vsnprintf(L->detail, sizeof(L->detail), fmt, ap);
	va_end(ap);
}

static void comm_now(char *comm)
{
	memset(comm, 0, 17);
	if (prctl(PR_GET_NAME, comm) < 0)
		strcpy(comm, "?");
	for (char *c = comm; *c; c++)
		if (*c <= ' ' || *c == '"' || *c > '~')
			*c = '_';
}

static void print_result(const struct lab *L, const char *verdict, const char *detail)
{
	char comm[17], d[256];

	comm_now(comm);
	snprintf(d, sizeof(d), "%s", detail);
	for (char *c = d; *c; c++)
		if (*c == '"' || *c == '\n')
			*c = '\'';
	printf("RESULT step=%d reader=%s abi=%s comm=%s verdict=%s detail=\"%s\"\n",
	       L->step, L->reader->name, LAB_ABI, comm, verdict, d);
	fflush(stdout);
}

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
		_exit(1);
	_exit(1);
}

static void on_signal(int sig)
{
	if (sig == SIGALRM) {
		if (watchdog_fired)
			emergency();
		watchdog_fired = 1;
		alarm(5);	/* grace for the orderly cleanup */
	} else {
		stop_signal = sig;
	}
	lab_stop = 1;
}

static void install_signals(int watchdog_s)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */

	sigemptyset(&sa.sa_mask);
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

/* pgrp= of the topmost autofs mounted on dir, or 0 if there is none. */
static int autofs_pgrp_on(const char *dir)
{
	char line[512], mnt[256], type[32], opts[256];
	FILE *f = fopen("/proc/self/mounts", "r");
	const char *p;
	int pgrp = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %255s %31s %255s", mnt, type, opts) == 3 &&
		    !strcmp(mnt, dir))
			pgrp = strcmp(type, "autofs") ? 0 :
			       (p = strstr(opts, "pgrp=")) ? atoi(p + 5) : -1;
	fclose(f);
	return pgrp;
}

/* An autofs left by a daemon that was killed before its cleanup (its
 * process group is gone) would sit under ours forever: detach it.  One
 * whose daemon lives is not ours: mounting over it would send its
 * clients to us, and walking into it would block us.  Returns that pgrp. */
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

#define SETUP_FAIL(...) do { L->setup_failed = 1; \
	lab_fail(L, "setup failed: " __VA_ARGS__); return -1; } while (0)

static int setup(struct lab *L)
{
	char opts[128];
	struct stat st;
	int fds[2], proto = 0, busy;
	unsigned long tmo = 60;	/* seconds; expires here are forced anyway */

	if (pipe(fds) < 0)	/* plain pipe: packet mode is the kernel's call */
		SETUP_FAIL("pipe: %s", strerror(errno));
	L->pipe_r = fds[0];
	L->pipe_w = fds[1];
	if (mkdir_p(L->dir) < 0)
		SETUP_FAIL("mkdir %s: %s", L->dir, strerror(errno));
	if ((busy = clear_stale_autofs(L)) != 0)
		SETUP_FAIL("%s is in use by the autofs daemon of process group %d",
			   L->dir, busy);
	snprintf(opts, sizeof(opts), "fd=%d,pgrp=%d,minproto=5,maxproto=5,indirect",
		 L->pipe_w, (int)getpgrp());
	if (mount("lab", L->dir, "autofs", 0, opts) < 0)
		SETUP_FAIL("mount autofs on %s (%s): %s", L->dir, opts, strerror(errno));
	L->autofs_mounted = 1;
	/* the kernel holds its own reference; ours would hide EOF */
	close(L->pipe_w);
	L->pipe_w = -1;
	fcntl(L->pipe_r, F_SETFL, O_NONBLOCK);	/* poll() decides when to read */

	L->ioctl_fd = open(L->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (L->ioctl_fd < 0)
		SETUP_FAIL("open %s: %s", L->dir, strerror(errno));
	if (fstat(L->ioctl_fd, &st) < 0)
		SETUP_FAIL("fstat %s: %s", L->dir, strerror(errno));
	L->root_dev = (unsigned int)st.st_dev;	/* packets carry new_encode_dev() */
	L->root_ino = (unsigned long long)st.st_ino;
	if (ioctl(L->ioctl_fd, AUTOFS_IOC_PROTOVER, &proto) < 0)
		SETUP_FAIL("AUTOFS_IOC_PROTOVER: %s", strerror(errno));
	if (proto != 5)
		SETUP_FAIL("kernel speaks autofs protocol %d, not 5", proto);
	if (ioctl(L->ioctl_fd, AUTOFS_IOC_SETTIMEOUT, &tmo) < 0)
		SETUP_FAIL("AUTOFS_IOC_SETTIMEOUT: %s", strerror(errno));
	fprintf(stderr, "%s: autofs on %s (%s), protocol %d, root dev 0x%x ino %llu\n",
		L->prog, L->dir, opts, proto, L->root_dev, L->root_ino);
	return 0;
}

/* Always: wake blocked clients, reap every child, leave nothing mounted. */
static void cleanup(struct lab *L)
{
	if (L->ioctl_fd >= 0 && L->autofs_mounted &&
	    ioctl(L->ioctl_fd, AUTOFS_IOC_CATATONIC, 0) < 0)
		fprintf(stderr, "%s: AUTOFS_IOC_CATATONIC: %s\n", L->prog, strerror(errno));
	kids_reap_all(L, L->timeout_ms < 250 ? L->timeout_ms : 250);
	for (int k = 0; k < NKEYS; k++) {
		if (!L->sub_mounted[k])
			continue;
		if (umount2(L->sub[k], 0) < 0 && umount2(L->sub[k], MNT_DETACH) < 0)
			fprintf(stderr, "%s: umount %s: %s\n", L->prog, L->sub[k], strerror(errno));
		L->sub_mounted[k] = 0;
	}
	if (L->ioctl_fd >= 0)
		close(L->ioctl_fd);
	L->ioctl_fd = -1;
	if (L->autofs_mounted) {
		if (umount2(L->dir, 0) < 0) {
			fprintf(stderr, "%s: umount %s: %s, detaching\n", L->prog, L->dir,
				strerror(errno));
			if (umount2(L->dir, MNT_DETACH) < 0)
				fprintf(stderr, "%s: umount -l %s: %s\n", L->prog, L->dir,
					strerror(errno));
		}
		L->autofs_mounted = 0;
	}
	if (L->pipe_w >= 0)
		close(L->pipe_w);
	if (L->pipe_r >= 0)
		close(L->pipe_r);
	L->pipe_r = L->pipe_w = -1;
}

static int usage(struct lab *L, const char *why)
{
	fprintf(stderr, "%s: %s\nusage: %s --step N [--dir /auto] [--timeout-ms 2000]"
		" [--comm NAME]\n", L->prog, why, L->prog);
	lab_fail(L, "setup failed: %s", why);
	print_result(L, "broken", L->detail);
	return 2;
}

/* setsid() refuses a process group leader: then serve from a child. */
static int own_session(struct lab *L)
{
	int status;
	pid_t pid;

	if (setsid() >= 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (setsid() >= 0)
			return -1;
		_exit(2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		lab_fail(L, "setup failed: setsid: %s", strerror(errno));
		print_result(L, "broken", L->detail);
		return 2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	struct lab *L = &lab;
	const char *comm_set = NULL, *dir = "/auto";
	char comm[17];
	int rc, watchdog_s;

	L->prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	L->reader = &READER;
	L->timeout_ms = 2000;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--step") && v)
			L->step = atoi(v);
		else if (!strcmp(argv[i], "--dir") && v)
			dir = v;
		else if (!strcmp(argv[i], "--timeout-ms") && v)
			L->timeout_ms = atoi(v);
		else if (!strcmp(argv[i], "--comm") && v)
			comm_set = v;	/* step 3 cares what the kernel calls us */
		else
			return usage(L, "bad arguments");
		i++;
	}
	if (L->timeout_ms <= 0 || L->timeout_ms > 60000 || dir[0] != '/' ||
	    strlen(dir) >= sizeof(L->dir))
		return usage(L, "--timeout-ms must be 1..60000, --dir absolute and short");
	snprintf(L->dir, sizeof(L->dir), "%s", dir);
	for (int k = 0; k < NKEYS; k++)
		snprintf(L->sub[k], sizeof(L->sub[k]), "%.250s/%s", L->dir, lab_keys[k]);
	if (comm_set)
		prctl(PR_SET_NAME, comm_set);

	/* the kernel sends no requests to processes in the mount's pgrp */
	rc = own_session(L);
	if (rc >= 0)
		return rc;

	comm_now(comm);
	watchdog_s = L->timeout_ms * 8 / 1000 + 10;
	snprintf(emergency_line, sizeof(emergency_line),
		 "RESULT step=%d reader=%s abi=%s comm=%s verdict=broken "
		 "detail=\"watchdog: no result after %d s, emergency cleanup\"\n",
		 L->step, L->reader->name, LAB_ABI, comm, watchdog_s);
	install_signals(watchdog_s);

	L->daemon_pid = getpid();
	rc = setup(L) < 0 ? -1 : serve(L);
	if (rc < 0 && (watchdog_fired || stop_signal)) {
		char why[sizeof(L->detail)];

		memcpy(why, L->detail, sizeof(why));
		L->detail[0] = '\0';
		if (watchdog_fired)
			lab_fail(L, "watchdog after %d s: %s", watchdog_s, why);
		else
			lab_fail(L, "stopped by signal %d: %s", (int)stop_signal, why);
	}
	cleanup(L);
	alarm(0);	/* done: no emergency line after the real one */

	if (rc == 0) {
		char d[256];

		if (L->queued_size && L->queued_size != L->read_size)
			snprintf(d, sizeof(d), "%d requests, %zu-byte packets read as %zu%s",
				 L->requests, L->queued_size, L->read_size,
				 L->left_after ? "" : " (packet pipe dropped the rest)");
		else
			snprintf(d, sizeof(d), "%d requests, %zu-byte packets",
				 L->requests, L->read_size);
		print_result(L, "ok", d);
		return 0;
	}
	print_result(L, "broken", L->detail[0] ? L->detail : "unknown failure");
	return L->setup_failed ? 2 : 1;
}
