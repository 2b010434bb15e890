// SPDX-License-Identifier: GPL-2.0
/* Packet validation and diagnosis: never act on bytes we cannot explain. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "packet.h"

volatile sig_atomic_t lab_stop;

/* Field offsets as compiled: identical on i386 and x86_64, only sizeof differs. */
#define OFF(f) offsetof(struct autofs_v5_packet, f)
#define END(f) (OFF(f) + sizeof(((struct autofs_v5_packet *)0)->f))

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void lab_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGALRM);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

int wait_readable(int fd, int timeout_ms, long *waited_ms)
{
	long start = now_ms(), left;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec ts;
	sigset_t stop, orig;
	int r, err;

	/*
	 * lab_stop is tested with the stop signals blocked; ppoll() unblocks
	 * them atomically, so none can slip in between test and wait
	 */
	lab_stop_signals(&stop);
	sigprocmask(SIG_BLOCK, &stop, &orig);
	for (;;) {
		if (lab_stop) {
			r = -1;
			err = EINTR;
			break;
		}
		left = timeout_ms - (now_ms() - start);
		if (left < 0)
			left = 0;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000L;
		r = ppoll(&p, 1, &ts, &orig);
		err = errno;
		if (r >= 0 || err != EINTR)
			break;
	}
	*waited_ms = now_ms() - start;
	sigprocmask(SIG_SETMASK, &orig, NULL);
	if (r < 0) {
		errno = err;
		return -1;
	}
	return r > 0;	/* POLLIN or POLLHUP: read() will tell */
}

ssize_t read_when_ready(int fd, void *buf, size_t n, int timeout_ms,
			struct read_result *rr)
{
	long start = now_ms(), left, waited;
	ssize_t got;
	int r;

	for (;;) {
		left = timeout_ms - (now_ms() - start);
		r = wait_readable(fd, left > 0 ? (int)left : 0, &waited);
		rr->waited_ms = now_ms() - start;
		if (r <= 0) {
			rr->status = r == 0 ? RD_STALL : lab_stop ? RD_INTR : RD_ERROR;
			rr->err = errno;
			return -1;
		}
		if (rr->got == 0) {
			long q = pipe_queued(fd);

			rr->queued = q > 0 ? (size_t)q : 0;
		}
		got = read(fd, buf, n);
		if (got >= 0)
			return got;
		rr->err = errno;
		if (lab_stop || (rr->err != EAGAIN && rr->err != EINTR)) {
			rr->status = lab_stop ? RD_INTR : RD_ERROR;
			return -1;
		}
		/* ready, yet someone else took the bytes: wait out the rest */
		if (now_ms() - start >= timeout_ms) {
			rr->status = RD_STALL;
			return -1;
		}
	}
}

long pipe_queued(int fd)
{
	int n;

	return ioctl(fd, FIONREAD, &n) < 0 ? -1 : n;
}

const char *ptype_name(int type)
{
	static const char *const names[] = {
		"missing", "expire", "expire_multi", "missing_indirect",
		"expire_indirect", "missing_direct", "expire_direct",
	};

	if (type >= 0 && type < (int)ARRAY_SIZE(names))
		return names[type];
	return "unknown";
}

/* Byte-wise field access: the buffer may hold anything, e.g. a shifted packet. */
static uint32_t get32(const unsigned char *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Printable copy of a name for messages (no quotes, bounded). */
static void printable(const unsigned char *s, size_t n, char *out, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < n && s[i] && o + 5 < len; i++) {
		if (s[i] > 0x20 && s[i] < 0x7f && s[i] != '"')
			out[o++] = (char)s[i];
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", s[i]);
	}
	out[o] = '\0';
}

void leftover_hint(const void *buf, size_t got, char *hint, size_t len)
{
	static const unsigned char zero[4];
	const unsigned char *b = buf;

	hint[0] = '\0';
	/* 304 - 300: the x86_64 tail padding a 300-byte reader leaves behind */
	if (got == 4 && !memcmp(b, zero, 4))
		snprintf(hint, len,
			 "tail padding of the previous 304-byte packet");
	else if (got >= 12 && !memcmp(b, zero, 4) &&
		 get32(b, 4) == 5 && get32(b, 8) <= autofs_ptype_expire_direct)
		snprintf(hint, len,
			 "shifted by 4 bytes: tail padding of the previous 304-byte packet");
}

int packet_validate(const void *buf, size_t got, const struct pkt_expect *ex,
		    char *why, size_t whylen)
{
	const unsigned char *b = buf;
	char hint[96], shown[64], tail[112] = "";
	uint32_t ver, type, tok, len, pid, tgid, uid, gid, dev;
	uint64_t ino;
	int i;

	leftover_hint(buf, got, hint, sizeof(hint));
	if (hint[0])
		snprintf(tail, sizeof(tail), " (%s)", hint);

	if (got < OFF(name) + 1) {
		snprintf(why, whylen, "only %zu bytes, a packet needs at least %zu%s",
			 got, OFF(name) + 1, tail);
		return -1;
	}
	ver = get32(b, OFF(hdr.proto_version));
	if (ver != 5) {
		snprintf(why, whylen, "proto_version %u, expected 5%s", ver, tail);
		return -1;
	}
	type = get32(b, OFF(hdr.type));
	if ((int)type != ex->type) {
		snprintf(why, whylen, "type %u (%s), expected %d (%s)%s", type,
			 ptype_name((int)type), ex->type, ptype_name(ex->type), tail);
		return -1;
	}
	len = get32(b, OFF(len));
	if (len > NAME_MAX) {
		snprintf(why, whylen, "len %u > NAME_MAX %d", len, NAME_MAX);
		return -1;
	}
	if (OFF(name) + len + 1 > got) {
		snprintf(why, whylen, "len %u but only %zu bytes read", len, got);
		return -1;
	}
	if (b[OFF(name) + len] != '\0') {
		snprintf(why, whylen, "name[%u] is 0x%02x, expected NUL at len",
			 len, b[OFF(name) + len]);
		return -1;
	}
	if (strlen((const char *)b + OFF(name)) != len) {
		snprintf(why, whylen, "strlen(name) %zu != len %u",
			 strlen((const char *)b + OFF(name)), len);
		return -1;
	}
	for (i = 0; i < ex->n_names; i++)
		if (!strcmp((const char *)b + OFF(name), ex->names[i]))
			break;
	if (i == ex->n_names) {
		printable(b + OFF(name), len, shown, sizeof(shown));
		snprintf(why, whylen, "name %s, expected %s%s", shown,
			 ex->n_names ? ex->names[0] : "(none)",
			 ex->n_names > 1 ? " or another pending key" : "");
		return -1;
	}
	tok = get32(b, OFF(wait_queue_token));
	if (tok == 0) {
		snprintf(why, whylen, "wait_queue_token 0 (never issued)");
		return -1;
	}
	for (int j = 0; j < ex->n_answered; j++)
		if (ex->answered[j] == tok) {
			snprintf(why, whylen, "wait_queue_token %u already answered", tok);
			return -1;
		}
	pid = get32(b, OFF(pid));
	tgid = get32(b, OFF(tgid));
	if (pid != ex->pid || tgid != ex->pid) {
		snprintf(why, whylen, "pid %u tgid %u, expected %u (the requester)",
			 pid, tgid, ex->pid);
		return -1;
	}
	uid = get32(b, OFF(uid));
	gid = get32(b, OFF(gid));
	if (uid != 0 || gid != 0) {
		snprintf(why, whylen, "uid %u gid %u, expected 0 0", uid, gid);
		return -1;
	}
	dev = get32(b, OFF(dev));
	if (ex->dev && dev != ex->dev) {
		snprintf(why, whylen, "dev 0x%x, expected 0x%x (autofs root)", dev, ex->dev);
		return -1;
	}
	ino = get64(b, OFF(ino));
	if (ex->ino && ino != ex->ino) {
		snprintf(why, whylen, "ino %llu, expected %llu (autofs root)",
			 (unsigned long long)ino, ex->ino);
		return -1;
	}
	return i;
}

void read_describe(const struct read_result *rr, const void *buf,
		   char *why, size_t whylen)
{
	char hint[96], tail[112] = "";

	leftover_hint(buf, rr->got, hint, sizeof(hint));
	if (hint[0])
		snprintf(tail, sizeof(tail), " (%s)", hint);

	switch (rr->status) {
	case RD_OK:
		snprintf(why, whylen, "read %zu bytes", rr->got);
		break;
	case RD_SHORT:
		snprintf(why, whylen, "read %zu bytes, expected %zu%s",
			 rr->got, rr->want, tail);
		break;
	case RD_STALL:
		if (rr->got == 0)
			snprintf(why, whylen, "no packet within %ld ms", rr->waited_ms);
		else
			snprintf(why, whylen, "stalled after %zu of %zu bytes (%ld ms)",
				 rr->got, rr->want, rr->waited_ms);
		break;
	case RD_EOF:
		snprintf(why, whylen, "pipe closed after %zu of %zu bytes%s",
			 rr->got, rr->want, tail);
		break;
	case RD_ERROR:
		snprintf(why, whylen, "read failed after %zu of %zu bytes: %s",
			 rr->got, rr->want, strerror(rr->err));
		break;
	case RD_INTR:
		snprintf(why, whylen, "interrupted after %zu of %zu bytes",
			 rr->got, rr->want);
		break;
	}
}

void packet_diagnose(FILE *f, const char *prefix, const void *buf, size_t got)
{
	const unsigned char *b = buf;
	size_t show = got < 48 ? got : 48, i;
	char hint[96], shown[64];

	fprintf(f, "%s: %zu bytes received%s\n", prefix, got,
		got ? ", first bytes:" : "");
	for (i = 0; i < show; i++) {
		if (i % 16 == 0)
			fprintf(f, "%s:   %3zu:", prefix, i);
		fprintf(f, " %02x", b[i]);
		if (i % 16 == 15 || i + 1 == show)
			fputc('\n', f);
	}
	if (got >= END(hdr.type))
		fprintf(f, "%s:   proto_version=%u type=%u (%s)\n", prefix,
			get32(b, OFF(hdr.proto_version)), get32(b, OFF(hdr.type)),
			ptype_name((int)get32(b, OFF(hdr.type))));
	if (got >= END(ino))
		fprintf(f, "%s:   wait_queue_token=%u dev=0x%x ino=%llu\n", prefix,
			get32(b, OFF(wait_queue_token)), get32(b, OFF(dev)),
			(unsigned long long)get64(b, OFF(ino)));
	if (got >= END(len))
		fprintf(f, "%s:   uid=%u gid=%u pid=%u tgid=%u len=%u\n", prefix,
			get32(b, OFF(uid)), get32(b, OFF(gid)), get32(b, OFF(pid)),
			get32(b, OFF(tgid)), get32(b, OFF(len)));
	if (got > OFF(name)) {
		printable(b + OFF(name), got - OFF(name), shown, sizeof(shown));
		fprintf(f, "%s:   name=%s\n", prefix, shown);
	}
	leftover_hint(buf, got, hint, sizeof(hint));
	if (hint[0])
		fprintf(f, "%s:   looks like: %s\n", prefix, hint);
}
