/* Serving requests: every packet is read with the program's strategy,
 * validated field by field, and only then acted upon.  Lookups of every
 * key come first, then their expires: at least two packets in a row,
 * because one packet's leftover bytes only show on the next read. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"

const char *const lab_keys[NKEYS] = { "a", "b" };

/* Read one packet and check it; on failure explain it and fill detail. */
static int read_request(struct lab *L, const struct pkt_expect *ex,
			unsigned char *buf, const char *what)
{
	struct read_result rr;
	char why[200], prefix[64];
	long left;
	int idx;

	L->requests++;
	snprintf(prefix, sizeof(prefix), "%s: request %d", L->prog, L->requests);
	memset(buf, 0, PKT_BUF_SIZE);
	if (L->reader->read(L->pipe_r, buf, PKT_BUF_SIZE, L->timeout_ms, &rr) < 0) {
		read_describe(&rr, buf, why, sizeof(why));
		fprintf(stderr, "%s (%s): %s\n", prefix, what, why);
		packet_diagnose(stderr, prefix, buf, rr.got);
		lab_fail(L, "request %d: %s", L->requests, why);
		return -1;
	}
	left = pipe_queued(L->pipe_r);
	fprintf(stderr, "%s (%s): kernel queued %zu bytes, %s read %zu, %ld left in the pipe\n",
		prefix, what, rr.queued, L->reader->name, rr.got, left);
	if (L->requests == 1) {
		L->queued_size = rr.queued;
		L->read_size = rr.got;
	}
	if (left > 0)
		L->left_after = (size_t)left;

	if (!ex) {
		/* nobody asked: bytes waiting between requests */
		packet_diagnose(stderr, prefix, buf, rr.got);
		lab_fail(L, "request %d: %zu bytes arrived before any request was made",
			 L->requests, rr.got);
		return -1;
	}
	idx = packet_validate(buf, rr.got, ex, why, sizeof(why));
	if (idx < 0) {
		fprintf(stderr, "%s: garbled packet: %s\n", prefix, why);
		packet_diagnose(stderr, prefix, buf, rr.got);
		lab_fail(L, "request %d: %s", L->requests, why);
		return -1;
	}
	return idx;
}

/* An event-loop daemon reads as soon as the pipe is readable; between
 * requests it must be empty.  Leftover bytes get read (and caught) here. */
static int check_idle(struct lab *L)
{
	struct pollfd p = { .fd = L->pipe_r, .events = POLLIN };
	unsigned char buf[PKT_BUF_SIZE];

	if (poll(&p, 1, 0) <= 0)
		return 0;
	fprintf(stderr, "%s: pipe readable before request %d was triggered\n",
		L->prog, L->requests + 1);
	read_request(L, NULL, buf, "unsolicited");
	return -1;
}

static autofs_wqt_t token_of(const unsigned char *buf)
{
	autofs_wqt_t t;

	memcpy(&t, buf + offsetof(struct autofs_v5_packet, wait_queue_token), sizeof(t));
	return t;
}

static int answer(struct lab *L, autofs_wqt_t token, int ok)
{
	unsigned long cmd = ok ? AUTOFS_IOC_READY : AUTOFS_IOC_FAIL;

	if (L->n_answered < MAX_TOKENS)
		L->answered[L->n_answered++] = token;
	if (ioctl(L->ioctl_fd, cmd, token) < 0) {
		lab_fail(L, "request %d: AUTOFS_IOC_%s(%u): %s", L->requests,
			 ok ? "READY" : "FAIL", token, strerror(errno));
		return -1;
	}
	return 0;
}

static void expect_init(struct lab *L, struct pkt_expect *ex, int type, pid_t pid)
{
	*ex = (struct pkt_expect){
		.type = type, .pid = (unsigned int)pid,
		.dev = L->root_dev, .ino = L->root_ino,
		.answered = L->answered, .n_answered = L->n_answered,
	};
}

static int serve_lookup(struct lab *L, int k)
{
	static const char *const client_says[] = {
		"", "stat failed", "statfs failed", "not a tmpfs", "", "setpgid failed",
	};
	unsigned char buf[PKT_BUF_SIZE];
	struct pkt_expect ex;
	char what[64], st[96];
	int status, code;
	pid_t pid;

	if (check_idle(L) < 0)
		return -1;
	pid = spawn_client(L, L->sub[k]);
	if (pid < 0) {
		lab_fail(L, "request %d: fork: %s", L->requests + 1, strerror(errno));
		return -1;
	}
	expect_init(L, &ex, autofs_ptype_missing_indirect, pid);
	ex.names = &lab_keys[k];
	ex.n_names = 1;
	snprintf(what, sizeof(what), "lookup %s by pid %d", lab_keys[k], (int)pid);
	if (read_request(L, &ex, buf, what) < 0)
		return -1;

	/* the daemon may create directories in its own autofs */
	if (mkdir(L->sub[k], 0555) < 0 && errno != EEXIST) {
		lab_fail(L, "request %d: mkdir %s: %s", L->requests, L->sub[k], strerror(errno));
		answer(L, token_of(buf), 0);
		return -1;
	}
	if (mount("tmpfs", L->sub[k], "tmpfs", 0, "size=64k,mode=0755") < 0) {
		L->setup_failed = 1;
		lab_fail(L, "setup failed: mount tmpfs on %s: %s", L->sub[k], strerror(errno));
		answer(L, token_of(buf), 0);
		return -1;
	}
	L->sub_mounted[k] = 1;
	if (answer(L, token_of(buf), 1) < 0)
		return -1;

	if (kid_wait(L, pid, L->timeout_ms, &status) < 0) {
		lab_fail(L, "request %d: client for %s still blocked after %d ms",
			 L->requests, lab_keys[k], L->timeout_ms);
		return -1;
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (code != 0) {
		describe_status("client", status, st, sizeof(st));
		lab_fail(L, "request %d: %s%s%s", L->requests, st,
			 code > 0 && code <= 5 ? ", " : "",
			 code > 0 && code <= 5 ? client_says[code] : "");
		return -1;
	}
	return 0;
}

static int serve_expires(struct lab *L)
{
	unsigned char buf[PKT_BUF_SIZE];
	const char *pending[NKEYS];
	struct pkt_expect ex;
	char what[64], st[96];
	int status, n, idx, k;
	pid_t pid;

	if (check_idle(L) < 0)
		return -1;
	pid = spawn_expirer(L);
	if (pid < 0) {
		lab_fail(L, "expire: fork: %s", strerror(errno));
		return -1;
	}
	for (int round = 0; round < NKEYS; round++) {
		/* the kernel picks the order: accept any key still mounted */
		n = 0;
		for (k = 0; k < NKEYS; k++)
			if (L->sub_mounted[k])
				pending[n++] = lab_keys[k];
		expect_init(L, &ex, autofs_ptype_expire_indirect, pid);
		ex.names = pending;
		ex.n_names = n;
		snprintf(what, sizeof(what), "expire by pid %d", (int)pid);
		idx = read_request(L, &ex, buf, what);
		if (idx < 0)
			return -1;
		for (k = 0; strcmp(lab_keys[k], pending[idx]); k++)
			;
		if (umount2(L->sub[k], 0) < 0) {
			lab_fail(L, "request %d: umount %s: %s", L->requests,
				 L->sub[k], strerror(errno));
			answer(L, token_of(buf), 0);
			return -1;
		}
		L->sub_mounted[k] = 0;
		/* like automount: remove the mount point it created */
		if (rmdir(L->sub[k]) < 0)
			fprintf(stderr, "%s: rmdir %s: %s (harmless)\n", L->prog,
				L->sub[k], strerror(errno));
		if (answer(L, token_of(buf), 1) < 0)
			return -1;
	}
	if (kid_wait(L, pid, L->timeout_ms, &status) < 0) {
		lab_fail(L, "expire: expirer still busy after %d ms", L->timeout_ms);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != NKEYS) {
		describe_status("expirer", status, st, sizeof(st));
		lab_fail(L, "expire: %s, expected %d expires then EAGAIN", st, NKEYS);
		return -1;
	}
	return 0;
}

int serve(struct lab *L)
{
	long left;

	for (int k = 0; k < NKEYS; k++)
		if (serve_lookup(L, k) < 0)
			return -1;
	if (serve_expires(L) < 0)
		return -1;
	left = pipe_queued(L->pipe_r);
	if (left > 0) {
		lab_fail(L, "%ld bytes left unread in the pipe after request %d",
			 left, L->requests);
		return -1;
	}
	return 0;
}
