/* Host unit tests: the daemons' own reading strategies and validator, fed
 * through real pipes.  Built for i386 and x86_64; TAP lines on stdout. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "packet.h"

#define NATIVE sizeof(struct autofs_v5_packet)
#define WIDE 304	/* what a 64-bit kernel writes */
#define COMPAT 300	/* what the 2012 compat hack wrote */
#define TMO 150		/* ms: short, the tests must be quick */
#define DEV 0x2a
#define INO 1ULL

static int tests, failed;

/* One TAP line; the printf-style tail says why when it fails. */
static void check(int cond, const char *desc, const char *fmt, ...)
{
	char why[300] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	tests++;
	if (cond) {
		printf("ok %d - %s\n", tests, desc);
	} else {
		failed++;
		printf("not ok %d - %s (%s)\n", tests, desc, why);
	}
}

static void skip(const char *desc, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tests, desc, why);
}

/* A packet as the kernel builds it, in a buffer of wide size (tail zero). */
static void make_pkt(unsigned char *buf, int type, autofs_wqt_t token,
		     const char *name, unsigned int pid)
{
	struct autofs_v5_packet p;

	memset(buf, 0, WIDE);
	memset(&p, 0, sizeof(p));
	p.hdr.proto_version = 5;
	p.hdr.type = type;
	p.wait_queue_token = token;
	p.dev = DEV;
	p.ino = INO;
	p.pid = p.tgid = pid;
	p.len = (unsigned int)strlen(name);
	strcpy(p.name, name);
	memcpy(buf, &p, COMPAT);	/* every field ends by byte 300 */
}

/* A pipe holding these bytes; the daemons read a non-blocking end too. */
static int feed(int *wfd, const void *data, size_t n)
{
	int fds[2];

	if (pipe(fds) < 0) {
		perror("pipe");
		exit(2);
	}
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	if (n && write(fds[1], data, n) != (ssize_t)n) {
		perror("write");
		exit(2);
	}
	*wfd = fds[1];
	return fds[0];
}

static void closeboth(int r, int w)
{
	close(r);
	if (w >= 0)
		close(w);
}

static const char *const key_a[] = { "a" };
static const char *const keys_ab[] = { "a", "b" };

static struct pkt_expect lookup_a(unsigned int pid)
{
	return (struct pkt_expect){
		.type = autofs_ptype_missing_indirect, .names = key_a, .n_names = 1,
		.pid = pid, .dev = DEV, .ino = INO,
	};
}

/* Validation must fail, and say the expected thing. */
static void rejects(const unsigned char *buf, size_t got, const struct pkt_expect *ex,
		    const char *desc, const char *needle)
{
	char why[200] = "";
	int r = packet_validate(buf, got, ex, why, sizeof(why));

	check(r < 0 && strstr(why, needle) != NULL, desc,
	      "validate returned %d, reason '%s', wanted '%s'", r, why, needle);
}

static void test_layout(void)
{
	size_t want = strcmp(LAB_ABI, "i386") ? 304 : 300;

	check(NATIVE == want, "sizeof(struct autofs_v5_packet) matches the ABI",
	      "sizeof %zu, expected %zu on %s", NATIVE, want, LAB_ABI);
	check(offsetof(struct autofs_v5_packet, ino) == 16 &&
	      offsetof(struct autofs_v5_packet, name) == 44,
	      "field offsets are the same on every ABI",
	      "ino at %zu, name at %zu", offsetof(struct autofs_v5_packet, ino),
	      offsetof(struct autofs_v5_packet, name));
}

static void test_good(void)
{
	unsigned char in[WIDE], out[PKT_BUF_SIZE];
	struct read_result rr;
	struct pkt_expect ex;
	char why[200] = "";
	int r, w, idx;

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	r = feed(&w, in, NATIVE);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	ex = lookup_a(100);
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	check(rr.status == RD_OK && rr.got == NATIVE && idx == 0,
	      "systemd-style reads and accepts a good missing_indirect packet",
	      "status %d got %zu idx %d: %s", rr.status, rr.got, idx, why);
	check(rr.queued == NATIVE, "FIONREAD sees what the writer queued",
	      "queued %zu", rr.queued);
	closeboth(r, w);

	make_pkt(in, autofs_ptype_expire_indirect, 8, "b", 101);
	r = feed(&w, in, NATIVE);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	ex = (struct pkt_expect){ .type = autofs_ptype_expire_indirect,
		.names = keys_ab, .n_names = 2, .pid = 101 };
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	check(rr.status == RD_OK && idx == 1,
	      "a good expire_indirect packet matches the second pending key",
	      "status %d idx %d: %s", rr.status, idx, why);
	closeboth(r, w);
}

static void test_kpkt_len(void)
{
	size_t wide = strcmp(LAB_ABI, "i386") ? NATIVE : NATIVE + 4;

	check(automount_kpkt_len("x86_64") == 304,
	      "automount-style expects 304 bytes on an x86_64 kernel",
	      "got %zu", automount_kpkt_len("x86_64"));
	check(automount_kpkt_len("i686") == NATIVE,
	      "automount-style expects sizeof on a 32-bit kernel",
	      "got %zu, sizeof %zu", automount_kpkt_len("i686"), NATIVE);
	check(automount_kpkt_len("s390x") == wide && automount_kpkt_len("sparc64") == wide,
	      "automount-style adds 4 only where sizeof is not a multiple of 8",
	      "s390x %zu sparc64 %zu expected %zu", automount_kpkt_len("s390x"),
	      automount_kpkt_len("sparc64"), wide);
}

/* The real strategy, uname and all: on an x86_64 kernel it waits for 304. */
static void test_automount_uname(void)
{
	unsigned char in[WIDE], out[PKT_BUF_SIZE];
	struct read_result rr;
	struct pkt_expect ex = lookup_a(100);
	struct utsname un;
	char why[200] = "";
	int r, w, idx;

	if (uname(&un) < 0 || strcmp(un.machine, "x86_64")) {
		skip("automount-style on an x86_64 uname waits for 304 bytes",
		     "host uname is not x86_64");
		return;
	}
	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	r = feed(&w, in, WIDE);
	reader_automount_style.read(r, out, sizeof(out), TMO, &rr);
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	check(rr.status == RD_OK && rr.want == 304 && rr.got == 304 && idx == 0,
	      "automount-style on an x86_64 uname reads a whole 304-byte packet",
	      "status %d want %zu got %zu idx %d %s", rr.status, rr.want, rr.got, idx, why);
	closeboth(r, w);

	r = feed(&w, in, COMPAT);
	reader_automount_style.read(r, out, sizeof(out), TMO, &rr);
	check(rr.status == RD_STALL && rr.got == 300 && rr.want == 304,
	      "automount-style on an x86_64 uname waits for 304 and stalls on 300",
	      "status %d got %zu want %zu", rr.status, rr.got, rr.want);
	closeboth(r, w);
}

static void test_truncated(void)
{
	unsigned char in[WIDE], out[PKT_BUF_SIZE];
	struct read_result rr;
	char why[200];
	int r, w;

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);

	r = feed(&w, in, 100);
	close(w);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	check(rr.status == RD_SHORT && rr.got == 100,
	      "systemd-style refuses 100 bytes then EOF", "status %d got %zu",
	      rr.status, rr.got);
	close(r);

	r = feed(&w, in, 100);
	close(w);
	automount_read_sized(r, out, sizeof(out), 304, TMO, &rr);
	read_describe(&rr, out, why, sizeof(why));
	check(rr.status == RD_EOF && rr.got == 100 &&
	      strstr(why, "pipe closed after 100 of 304 bytes"),
	      "automount-style reports EOF after 100 of 304 bytes",
	      "status %d got %zu: %s", rr.status, rr.got, why);
	close(r);

	r = feed(&w, in, 100);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	check(rr.status == RD_SHORT && rr.got == 100,
	      "systemd-style refuses a short read without waiting for more",
	      "status %d got %zu", rr.status, rr.got);
	closeboth(r, w);

	r = feed(&w, in, 0);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	read_describe(&rr, out, why, sizeof(why));
	check(rr.status == RD_STALL && rr.got == 0 && rr.waited_ms >= TMO - 10 &&
	      strstr(why, "no packet within"),
	      "an empty pipe times out instead of hanging",
	      "status %d waited %ld: %s", rr.status, rr.waited_ms, why);
	closeboth(r, w);

	r = feed(&w, in, COMPAT);
	automount_read_sized(r, out, sizeof(out), 304, TMO, &rr);
	read_describe(&rr, out, why, sizeof(why));
	check(rr.status == RD_STALL && rr.got == 300 && rr.waited_ms >= TMO - 10 &&
	      strstr(why, "stalled after 300 of 304 bytes ("),
	      "a stall after 300 of 304 bytes is reported with the time waited",
	      "status %d got %zu waited %ld: %s", rr.status, rr.got, rr.waited_ms, why);
	closeboth(r, w);

	rejects(in, 20, &(struct pkt_expect){ .type = 3 },
		"the validator refuses a 20-byte fragment", "only 20 bytes");
}

/* Step 1 on i386: a 304-byte packet read 300 at a time. */
static void test_leftover(void)
{
	unsigned char in[2 * WIDE], out[PKT_BUF_SIZE];
	struct pkt_expect ex = lookup_a(100);
	struct read_result rr;
	char why[200] = "";
	int r, w, idx;

	/* 4 bytes of zero padding, then a packet: the shifted case */
	memset(in, 0, 4);
	make_pkt(in + 4, autofs_ptype_missing_indirect, 7, "a", 100);
	r = feed(&w, in, 4 + NATIVE);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	check(rr.status == RD_OK && idx < 0 && strstr(why, "proto_version 0, expected 5") &&
	      strstr(why, "shifted by 4 bytes: tail padding of the previous 304-byte packet"),
	      "a packet shifted by 4 bytes of padding is refused and explained",
	      "status %d idx %d: %s", rr.status, idx, why);
	closeboth(r, w);

	r = feed(&w, in, 4);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	read_describe(&rr, out, why, sizeof(why));
	check(rr.status == RD_SHORT && rr.got == 4 &&
	      strstr(why, "read 4 bytes, expected") &&
	      strstr(why, "tail padding of the previous 304-byte packet"),
	      "4 lone zero bytes are recognised as leftover tail padding",
	      "status %d got %zu: %s", rr.status, rr.got, why);
	closeboth(r, w);

	/* the next packet comes while the daemon reads: one read() only */
	r = feed(&w, in, 4);
	if (fork() == 0) {
		usleep(50 * 1000);
		_exit(write(w, in + 4, NATIVE) == (ssize_t)NATIVE ? 0 : 1);
	}
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	wait(NULL);
	check(rr.status == RD_SHORT && rr.got == 4,
	      "systemd-style does one read(): bytes arriving later are not merged",
	      "status %d got %zu", rr.status, rr.got);
	closeboth(r, w);
}

static void test_garbled(void)
{
	unsigned char in[WIDE];
	struct pkt_expect ex = lookup_a(100);
	autofs_wqt_t done[] = { 3, 7 };
	struct autofs_v5_packet *p = (struct autofs_v5_packet *)in;

	memset(in, 0xa5, sizeof(in));
	rejects(in, NATIVE, &ex, "garbage bytes are refused", "proto_version 2779096485");

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	p->hdr.proto_version = 4;
	rejects(in, NATIVE, &ex, "a v4 header is refused", "proto_version 4, expected 5");

	make_pkt(in, 42, 7, "a", 100);
	rejects(in, NATIVE, &ex, "an unknown type is refused", "type 42 (unknown)");

	make_pkt(in, autofs_ptype_expire_indirect, 7, "a", 100);
	rejects(in, NATIVE, &ex, "an expire where a lookup was asked is refused",
		"type 4 (expire_indirect), expected 3 (missing_indirect)");

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	p->len = 300;
	rejects(in, NATIVE, &ex, "len > NAME_MAX is refused", "len 300 > NAME_MAX 255");

	make_pkt(in, autofs_ptype_missing_indirect, 7, "ab", 100);
	p->len = 1;
	rejects(in, NATIVE, &ex, "a name not NUL-terminated at len is refused",
		"name[1] is 0x62");

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	p->len = 2;
	rejects(in, NATIVE, &ex, "a NUL inside the name is refused", "strlen(name) 1 != len 2");

	make_pkt(in, autofs_ptype_missing_indirect, 7, "b", 100);
	rejects(in, NATIVE, &ex, "the wrong key is refused", "name b, expected a");

	make_pkt(in, autofs_ptype_missing_indirect, 0, "a", 100);
	rejects(in, NATIVE, &ex, "a zero token is refused", "wait_queue_token 0");

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	ex.answered = done;
	ex.n_answered = 2;
	rejects(in, NATIVE, &ex, "an already answered token is refused",
		"wait_queue_token 7 already answered");
	ex.n_answered = 0;

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 999);
	rejects(in, NATIVE, &ex, "a packet from another pid is refused",
		"pid 999 tgid 999, expected 100");

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	p->uid = 1000;
	rejects(in, NATIVE, &ex, "a non-root uid is refused", "uid 1000 gid 0");

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	p->ino = 99;
	rejects(in, NATIVE, &ex, "a packet for another autofs root is refused", "ino 99");
}

/* The 2012 break: 300 vs 304 bytes in a stream pipe, for each strategy. */
static void test_sizes(void)
{
	unsigned char in[2 * WIDE], out[PKT_BUF_SIZE];
	struct pkt_expect ex = lookup_a(100);
	struct read_result rr, rr2;
	char why[200] = "", why2[200] = "";
	int r, w, idx, idx2 = -1;

	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	make_pkt(in + WIDE, autofs_ptype_missing_indirect, 8, "a", 100);

	/* systemd-style given what a 64-bit kernel writes */
	r = feed(&w, in, WIDE);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr2);
	read_describe(&rr2, out, why2, sizeof(why2));
	if (NATIVE == 300)
		check(rr.got == 300 && idx == 0 && rr2.status == RD_SHORT && rr2.got == 4 &&
		      strstr(why2, "tail padding"),
		      "i386 systemd-style: a 304-byte packet reads fine, then 4 bytes are left",
		      "got %zu idx %d, then status %d got %zu: %s", rr.got, idx,
		      rr2.status, rr2.got, why2);
	else
		check(rr.got == 304 && idx == 0 && rr2.status == RD_STALL && rr2.got == 0,
		      "x86_64 systemd-style: a 304-byte packet reads whole, nothing left",
		      "got %zu idx %d, then status %d got %zu", rr.got, idx, rr2.status, rr2.got);
	closeboth(r, w);

	/* two 304-byte packets queued back to back, as a stream pipe merges them */
	r = feed(&w, in, 2 * WIDE);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr2);
	ex.n_answered = 0;
	idx2 = packet_validate(out, rr2.got, &ex, why2, sizeof(why2));
	if (NATIVE == 300)
		check(rr2.status == RD_OK && idx2 < 0 && strstr(why2, "shifted by 4 bytes"),
		      "i386 systemd-style: the second 304-byte packet arrives shifted and is refused",
		      "status %d idx %d: %s", rr2.status, idx2, why2);
	else
		check(rr2.status == RD_OK && idx2 == 0,
		      "x86_64 systemd-style: two 304-byte packets read cleanly",
		      "status %d idx %d: %s", rr2.status, idx2, why2);
	closeboth(r, w);

	/* what the compat hack wrote: 300 bytes */
	r = feed(&w, in, COMPAT);
	reader_systemd_style.read(r, out, sizeof(out), TMO, &rr);
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	if (NATIVE == 300)
		check(rr.status == RD_OK && idx == 0,
		      "i386 systemd-style accepts a 300-byte packet",
		      "status %d got %zu idx %d %s", rr.status, rr.got, idx, why);
	else
		check(rr.status == RD_SHORT && rr.got == 300 && rr.want == 304,
		      "x86_64 systemd-style refuses a 300-byte packet",
		      "status %d got %zu want %zu", rr.status, rr.got, rr.want);
	closeboth(r, w);

	/* automount-style at its x86_64-kernel size: 304 per packet */
	r = feed(&w, in, 2 * WIDE);
	automount_read_sized(r, out, sizeof(out), automount_kpkt_len("x86_64"), TMO, &rr);
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	automount_read_sized(r, out, sizeof(out), automount_kpkt_len("x86_64"), TMO, &rr2);
	idx2 = packet_validate(out, rr2.got, &ex, why2, sizeof(why2));
	check(rr.status == RD_OK && rr2.status == RD_OK && rr.got == 304 && rr2.got == 304 &&
	      idx == 0 && idx2 == 0,
	      "automount-style on an x86_64 kernel reads two 304-byte packets cleanly",
	      "status %d/%d got %zu/%zu idx %d/%d: %s %s", rr.status, rr2.status,
	      rr.got, rr2.got, idx, idx2, why, why2);
	closeboth(r, w);

	/* and on a 32-bit kernel (uname i686) it wants exactly sizeof */
	r = feed(&w, in, NATIVE);
	automount_read_sized(r, out, sizeof(out), automount_kpkt_len("i686"), TMO, &rr);
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	check(rr.status == RD_OK && rr.got == NATIVE && idx == 0,
	      "automount-style on a native kernel reads sizeof bytes",
	      "status %d got %zu idx %d %s", rr.status, rr.got, idx, why);
	closeboth(r, w);
}

/* Step 4: a packet pipe drops what a short read leaves. */
static void test_packet_pipe(void)
{
	unsigned char in[2 * WIDE], out[PKT_BUF_SIZE];
	struct pkt_expect ex = lookup_a(100);
	struct read_result rr, rr2;
	char why[200] = "", why2[200] = "";
	int fds[2], idx, idx2;

	if (pipe2(fds, O_DIRECT | O_NONBLOCK) < 0) {
		skip("systemd-style on a packet pipe", "pipe2(O_DIRECT) unsupported");
		return;
	}
	make_pkt(in, autofs_ptype_missing_indirect, 7, "a", 100);
	make_pkt(in + WIDE, autofs_ptype_missing_indirect, 8, "a", 100);
	if (write(fds[1], in, WIDE) != WIDE || write(fds[1], in + WIDE, WIDE) != WIDE)
		exit(2);
	reader_systemd_style.read(fds[0], out, sizeof(out), TMO, &rr);
	idx = packet_validate(out, rr.got, &ex, why, sizeof(why));
	reader_systemd_style.read(fds[0], out, sizeof(out), TMO, &rr2);
	idx2 = packet_validate(out, rr2.got, &ex, why2, sizeof(why2));
	check(rr.status == RD_OK && rr2.status == RD_OK && idx == 0 && idx2 == 0 &&
	      pipe_queued(fds[0]) == 0,
	      "systemd-style reads two 304-byte packets from a packet pipe cleanly",
	      "status %d/%d got %zu/%zu idx %d/%d: %s %s", rr.status, rr2.status,
	      rr.got, rr2.got, idx, idx2, why, why2);
	closeboth(fds[0], fds[1]);
}

static void test_diagnose(void)
{
	unsigned char in[WIDE + 4];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	memset(in, 0, 4);
	make_pkt(in + 4, autofs_ptype_missing_indirect, 7, "a", 100);
	packet_diagnose(f, "t", in, NATIVE);
	fclose(f);
	check(text && strstr(text, "0: 00 00 00 00 05 00 00 00 03 00 00 00 07 00 00 00") &&
	      strstr(text, "proto_version=0 type=5") && strstr(text, "looks like: shifted"),
	      "the diagnosis shows the hex bytes, the fields and the leftover hint",
	      "got: %s", text ? text : "(null)");
	free(text);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# test-packet: %s build, sizeof(struct autofs_v5_packet) = %zu\n",
	       LAB_ABI, NATIVE);
	test_layout();
	test_good();
	test_kpkt_len();
	test_automount_uname();
	test_truncated();
	test_leftover();
	test_garbled();
	test_sizes();
	test_packet_pipe();
	test_diagnose();
	printf("1..%d\n%d passed, %d failed\n", tests, tests - failed, failed);
	return failed ? 1 : 0;
}
