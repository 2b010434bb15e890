// SPDX-License-Identifier: GPL-2.0
/*
 * Serving requests: every packet is read with the program's strategy,
 * validated field by field, and only then acted upon.  Lookups of every
 * key come first, then their expires: at least two packets in a row,
 * because one packet's leftover bytes only show on the next read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"

const char *const lab_keys[NKEYS] = { "a", "b" };

/*
 * A read or a packet that failed: name the symptom.  Bytes left in the
 * pipe by the previous packet come first: whatever this read then shows
 * (a few lone bytes, a shifted packet) is their doing.
 */
static void read_failed(struct lab *L, const struct read_result *rr, const char *why)
{
	struct pkt_sizes sz = { (long)rr->queued, (long)rr->want, (long)rr->got };
	int n = L->requests;

	if (L->prev_left > 0 && rr->got > 0) {
		lab_broken(L, "leftover", &sz, "request %d: %s; the previous packet left %ld bytes in the pipe",
			   n, why, L->prev_left);
		return;
	}
	switch (rr->status) {
	case RD_OK:	/* read whole, refused by the validator */
		lab_broken(L, "garbled", &sz, "request %d: %s", n, why);
		break;
	case RD_SHORT:
		lab_broken(L, "short", &sz, "request %d: %s", n, why);
		break;
	case RD_STALL:
		if (rr->got)
			lab_broken(L, "stall", &sz, "request %d: %s", n, why);
		else
			lab_error(L, "nopacket", "request %d: %s", n, why);
		break;
	case RD_EOF:
		lab_error(L, "eof", "request %d: %s", n, why);
		break;
	case RD_ERROR:
		lab_error(L, "io", "request %d: %s", n, why);
		break;
	case RD_INTR:
		lab_error(L, "signal", "request %d: %s", n, why);
		break;
	}
}

/*
 * Read one packet and check it; on failure explain it and fill the
 * RESULT.  what says who asked ("lookup a by pid 57"): gdb-test.sh
 * compares that pid with the one the kernel wrote into the packet.
 */
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
		read_failed(L, &rr, why);
		return -1;
	}
	left = pipe_queued(L->pipe_r);
	fprintf(stderr, "%s (%s): kernel queued %zu bytes, %s read %zu, %ld left in the pipe\n",
		prefix, what, rr.queued, L->reader->name, rr.got, left);

	if (!ex) {
		/* nobody asked: bytes waiting between requests */
		packet_diagnose(stderr, prefix, buf, rr.got);
		if (L->prev_left > 0)
			read_failed(L, &rr, "bytes waiting before the request was made");
		else
			lab_error(L, "unsolicited", "request %d: %zu bytes arrived before any request was made",
				  L->requests, rr.got);
		return -1;
	}
	idx = packet_validate(buf, rr.got, ex, why, sizeof(why));
	if (idx < 0) {
		fprintf(stderr, "%s: garbled packet: %s\n", prefix, why);
		packet_diagnose(stderr, prefix, buf, rr.got);
		read_failed(L, &rr, why);
		return -1;
	}
	if (L->requests == 1)
		L->first = (struct pkt_sizes){ (long)rr.queued, (long)rr.want, (long)rr.got };
	/* a short read that left nothing behind: the pipe dropped the rest */
	if (rr.got < rr.queued && left == 0)
		L->dropped = 1;
	L->prev_left = left > 0 ? left : 0;
	return idx;
}

/*
 * An event-loop daemon reads as soon as the pipe is readable; between
 * requests it must be empty.  Leftover bytes get read (and caught) here.
 */
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
	if (L->ops->ioctl(L, cmd, token) < 0) {
		lab_error(L, "ioctl", "request %d: AUTOFS_IOC_%s(%u): %s", L->requests,
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
	unsigned char buf[PKT_BUF_SIZE];
	struct pkt_expect ex;
	char what[64], st[128];
	int status;
	pid_t pid;

	if (check_idle(L) < 0)
		return -1;
	pid = L->ops->spawn_client(L, L->sub[k]);
	if (pid < 0) {
		lab_error(L, "setup", "request %d: fork: %s", L->requests + 1, strerror(errno));
		return -1;
	}
	expect_init(L, &ex, autofs_ptype_missing_indirect, pid);
	ex.names = &lab_keys[k];
	ex.n_names = 1;
	snprintf(what, sizeof(what), "lookup %s by pid %d", lab_keys[k], (int)pid);
	if (read_request(L, &ex, buf, what) < 0)
		return -1;

	/* the daemon may create directories in its own autofs */
	if (L->ops->mkdir(L, L->sub[k], 0555) < 0 && errno != EEXIST) {
		lab_error(L, "setup", "request %d: mkdir %s: %s", L->requests, L->sub[k],
			  strerror(errno));
		answer(L, token_of(buf), 0);
		return -1;
	}
	if (L->ops->mount(L, "tmpfs", L->sub[k], "tmpfs", 0, "size=64k,mode=0755") < 0) {
		lab_error(L, "mount", "request %d: mount tmpfs on %s: %s", L->requests,
			  L->sub[k], strerror(errno));
		answer(L, token_of(buf), 0);
		return -1;
	}
	L->sub_mounted[k] = 1;
	if (answer(L, token_of(buf), 1) < 0)
		return -1;

	if (kid_wait(L, pid, L->timeout_ms, &status) < 0) {
		lab_error(L, "client", "request %d: the client for %s was still blocked %d ms after READY",
			  L->requests, lab_keys[k], L->timeout_ms);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != KID_OK) {
		describe_status("client", status, st, sizeof(st));
		lab_error(L, "client", "request %d: %s", L->requests, st);
		return -1;
	}
	return 0;
}

static int serve_expires(struct lab *L)
{
	unsigned char buf[PKT_BUF_SIZE];
	const char *pending[NKEYS];
	struct pkt_expect ex;
	char what[64], st[128];
	int status, n, idx, k;
	pid_t pid;

	if (check_idle(L) < 0)
		return -1;
	pid = L->ops->spawn_expirer(L);
	if (pid < 0) {
		lab_error(L, "setup", "expire: fork: %s", strerror(errno));
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
		if (L->ops->umount(L, L->sub[k], 0) < 0) {
			lab_error(L, "mount", "request %d: umount %s: %s", L->requests,
				  L->sub[k], strerror(errno));
			answer(L, token_of(buf), 0);
			return -1;
		}
		L->sub_mounted[k] = 0;
		/* like automount: remove the mount point it created */
		if (L->ops->rmdir(L, L->sub[k]) < 0)
			fprintf(stderr, "%s: rmdir %s: %s (harmless)\n", L->prog,
				L->sub[k], strerror(errno));
		if (answer(L, token_of(buf), 1) < 0)
			return -1;
	}
	if (kid_wait(L, pid, L->timeout_ms, &status) < 0) {
		lab_error(L, "expire", "the expirer was still busy %d ms after the last expire",
			  L->timeout_ms);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != KID_OK) {
		describe_status("expirer", status, st, sizeof(st));
		lab_error(L, "expire", "%s", st);
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
		struct pkt_sizes sz = { left, -1, -1 };

		lab_broken(L, "leftover", &sz, "%ld bytes left unread in the pipe after request %d",
			   left, L->requests);
		return -1;
	}
	return 0;
}
