// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests: the daemons' own reading strategies and validator, fed
 * through real pipes.  Built for i386 and x86_64 on the kernel's
 * kselftest harness, which prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "packet.h"
#include "pipe-trial.h"
#include "kselftest_harness.h"
#include "lab-test.h"

#define TMO 150		/* ms: short, the tests must be quick */

/* Room for two packets the way a 64-bit kernel lays them out. */
union pkt_buf {
	struct autofs_v5_packet p;
	unsigned char b[2 * WIDE];
};

/* A packet as the kernel builds it, in a buffer of wide size (tail zero). */
static void make_pkt(unsigned char *buf, int type, autofs_wqt_t token,
		     const char *name, unsigned int pid)
{
	struct autofs_v5_packet p;

	fill_pkt(&p, type, token, name, pid);
	memset(buf, 0, WIDE);
	memcpy(buf, &p, COMPAT);	/* every field ends by byte 300 */
}

/*
 * A pipe holding these bytes, read end non-blocking as the daemons have
 * it; -1 if the pipe could not be made or filled.
 */
static int feed(int *wfd, const void *data, size_t n)
{
	int fds[2];

	if (pipe(fds) < 0)
		return -1;
	if (fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0 ||
	    (n && write(fds[1], data, n) != (ssize_t)n)) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	*wfd = fds[1];
	return fds[0];
}

/* The harness compares typed copies: same signedness on both sides. */
#define EXPECT_STATUS(want, rr) EXPECT_EQ((int)(want), (int)(rr).status)

static const char *const key_a[] = { "a" };
static const char *const keys_ab[] = { "a", "b" };

static struct pkt_expect lookup_a(unsigned int pid)
{
	return (struct pkt_expect){
		.type = autofs_ptype_missing_indirect, .names = key_a, .n_names = 1,
		.pid = pid, .dev = DEV, .ino = INO,
	};
}

TEST(sizeof_matches_abi)
{
	size_t want = strcmp(LAB_ABI, "i386") ? 304 : 300;

	EXPECT_EQ(want, NATIVE) TH_LOG("sizeof on %s", LAB_ABI);
}

TEST(field_offsets_same_on_every_abi)
{
	EXPECT_EQ(16U, offsetof(struct autofs_v5_packet, ino));
	EXPECT_EQ(44U, offsetof(struct autofs_v5_packet, name));
}

/* Every read test below starts from packet a, token 7, pid 100. */
FIXTURE(rd) {
	union pkt_buf in;
	unsigned char out[PKT_BUF_SIZE];
	struct read_result rr, rr2;
	struct pkt_expect ex;
	char why[200], why2[200];
	int r, w;
};

FIXTURE_SETUP(rd)
{
	make_pkt(self->in.b, autofs_ptype_missing_indirect, 7, "a", 100);
	make_pkt(self->in.b + WIDE, autofs_ptype_missing_indirect, 8, "a", 100);
	self->ex = lookup_a(100);
	self->r = self->w = -1;
}

FIXTURE_TEARDOWN(rd)
{
	if (self->r >= 0)
		close(self->r);
	if (self->w >= 0)
		close(self->w);
}

/* A fresh pipe holding n bytes from off into the packets. */
#define FEED(off, n) do {						\
	if (self->r >= 0)						\
		close(self->r);						\
	if (self->w >= 0)						\
		close(self->w);						\
	self->w = -1;							\
	self->r = feed(&self->w, self->in.b + (off), (n));		\
	ASSERT_LE(0, self->r) TH_LOG("pipe: %s", strerror(errno));	\
} while (0)

#define VALIDATE(rr, why)						\
	packet_validate(self->out, (rr).got, &self->ex, (why), sizeof(why))

TEST_F(rd, systemd_accepts_good_lookup)
{
	int idx;

	FEED(0, NATIVE);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	EXPECT_STATUS(RD_OK, self->rr);
	EXPECT_EQ(NATIVE, self->rr.got);
	EXPECT_EQ(0, idx) TH_LOG("%s", self->why);
}

TEST_F(rd, fionread_sees_what_was_queued)
{
	FEED(0, NATIVE);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	EXPECT_EQ(NATIVE, self->rr.queued);
}

TEST_F(rd, expire_matches_second_pending_key)
{
	int idx;

	make_pkt(self->in.b, autofs_ptype_expire_indirect, 8, "b", 101);
	self->ex = (struct pkt_expect){ .type = autofs_ptype_expire_indirect,
		.names = keys_ab, .n_names = 2, .pid = 101 };
	FEED(0, NATIVE);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	EXPECT_STATUS(RD_OK, self->rr);
	EXPECT_EQ(1, idx) TH_LOG("%s", self->why);
}

/* autofs 5.0.1-5.0.6's packet size for a uname machine. */
FIXTURE(kpkt_len) {
};

FIXTURE_VARIANT(kpkt_len) {
	const char *machine;
	size_t want;
};

/* autofs's 64-bit machines add 4 only where sizeof is not a multiple of 8 */
#define WIDE_LEN (NATIVE % 8 ? NATIVE + 4 : NATIVE)

FIXTURE_VARIANT_ADD(kpkt_len, x86_64_kernel_is_304) { "x86_64", 304 };
FIXTURE_VARIANT_ADD(kpkt_len, i686_kernel_is_sizeof) { "i686", NATIVE };
FIXTURE_VARIANT_ADD(kpkt_len, alpha_adds_4_to_odd_sizeof) { "alpha", WIDE_LEN };
FIXTURE_VARIANT_ADD(kpkt_len, ppc64_adds_4_to_odd_sizeof) { "ppc64", WIDE_LEN };
/* the list of 2012 knows neither (both added in 2013) */
FIXTURE_VARIANT_ADD(kpkt_len, s390x_unknown_in_2012) { "s390x", NATIVE };
FIXTURE_VARIANT_ADD(kpkt_len, parisc64_unknown_in_2012) { "parisc64", NATIVE };

FIXTURE_SETUP(kpkt_len)
{
}

FIXTURE_TEARDOWN(kpkt_len)
{
}

TEST_F(kpkt_len, automount_len)
{
	EXPECT_EQ(variant->want, automount_kpkt_len(variant->machine))
		TH_LOG("machine %s, sizeof %zu", variant->machine, NATIVE);
}

/* The real strategy, uname and all: on an x86_64 kernel it waits for 304. */
TEST_F(rd, automount_uname_reads_whole_304)
{
	int idx;

	if (!host_is_x86_64())
		SKIP(return, "host uname is not x86_64");
	FEED(0, WIDE);
	reader_automount_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	EXPECT_STATUS(RD_OK, self->rr);
	EXPECT_EQ(304U, self->rr.want);
	EXPECT_EQ(304U, self->rr.got);
	EXPECT_EQ(0, idx) TH_LOG("%s", self->why);
}

TEST_F(rd, automount_uname_stalls_on_300)
{
	if (!host_is_x86_64())
		SKIP(return, "host uname is not x86_64");
	FEED(0, COMPAT);
	reader_automount_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	EXPECT_STATUS(RD_STALL, self->rr);
	EXPECT_EQ(300U, self->rr.got);
	EXPECT_EQ(304U, self->rr.want);
}

TEST_F(rd, systemd_refuses_100_then_eof)
{
	FEED(0, 100);
	close(self->w);
	self->w = -1;
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	EXPECT_STATUS(RD_SHORT, self->rr);
	EXPECT_EQ(100U, self->rr.got);
}

TEST_F(rd, automount_reports_eof_after_100_of_304)
{
	FEED(0, 100);
	close(self->w);
	self->w = -1;
	automount_read_sized(self->r, self->out, sizeof(self->out), 304, TMO, &self->rr);
	read_describe(&self->rr, self->out, self->why, sizeof(self->why));
	EXPECT_STATUS(RD_EOF, self->rr);
	EXPECT_EQ(100U, self->rr.got);
	EXPECT_HAS(self->why, "pipe closed after 100 of 304 bytes");
}

TEST_F(rd, systemd_refuses_short_without_waiting)
{
	FEED(0, 100);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	EXPECT_STATUS(RD_SHORT, self->rr);
	EXPECT_EQ(100U, self->rr.got);
}

TEST_F(rd, empty_pipe_times_out)
{
	FEED(0, 0);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	read_describe(&self->rr, self->out, self->why, sizeof(self->why));
	EXPECT_STATUS(RD_STALL, self->rr);
	EXPECT_EQ(0U, self->rr.got);
	EXPECT_LE(TMO - 10, self->rr.waited_ms);
	EXPECT_HAS(self->why, "no packet within");
}

TEST_F(rd, stall_reported_with_time_waited)
{
	FEED(0, COMPAT);
	automount_read_sized(self->r, self->out, sizeof(self->out), 304, TMO, &self->rr);
	read_describe(&self->rr, self->out, self->why, sizeof(self->why));
	EXPECT_STATUS(RD_STALL, self->rr);
	EXPECT_EQ(300U, self->rr.got);
	EXPECT_LE(TMO - 10, self->rr.waited_ms);
	EXPECT_HAS(self->why, "stalled after 300 of 304 bytes (");
}

/* Step 1 on i386: 4 bytes of zero padding, then a packet. */
TEST_F(rd, shifted_packet_refused_and_explained)
{
	int idx;

	memset(self->in.b, 0, 4);
	make_pkt(self->in.b + 4, autofs_ptype_missing_indirect, 7, "a", 100);
	FEED(0, 4 + NATIVE);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	EXPECT_STATUS(RD_OK, self->rr);
	EXPECT_GT(0, idx);
	EXPECT_HAS(self->why, "proto_version 0, expected 5");
	EXPECT_HAS(self->why,
		   "shifted by 4 bytes: tail padding of the previous 304-byte packet");
}

TEST_F(rd, lone_padding_recognised)
{
	memset(self->in.b, 0, 4);
	FEED(0, 4);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	read_describe(&self->rr, self->out, self->why, sizeof(self->why));
	EXPECT_STATUS(RD_SHORT, self->rr);
	EXPECT_EQ(4U, self->rr.got);
	EXPECT_HAS(self->why, "read 4 bytes, expected");
	EXPECT_HAS(self->why, "tail padding of the previous 304-byte packet");
}

/* The next packet comes while the daemon reads: one read() only. */
TEST_F(rd, systemd_does_one_read)
{
	pid_t pid;

	memset(self->in.b, 0, 4);
	make_pkt(self->in.b + 4, autofs_ptype_missing_indirect, 7, "a", 100);
	FEED(0, 4);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		usleep(50 * 1000);
		_exit(write(self->w, self->in.b + 4, NATIVE) == (ssize_t)NATIVE ? 0 : 1);
	}
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	waitpid(pid, NULL, 0);
	EXPECT_STATUS(RD_SHORT, self->rr);
	EXPECT_EQ(4U, self->rr.got);
}

/*
 * poll() says readable, read() says EAGAIN: another reader took the
 * bytes.  Both strategies wait again, and give up within their limit.
 */
TEST_F(rd, systemd_retries_eagain_within_limit)
{
	FEED(0, NATIVE);
	ASSERT_EQ(0, fail_syscall(__NR_read, self->r, EAGAIN)) TH_LOG("%s", strerror(errno));
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	read_describe(&self->rr, self->out, self->why, sizeof(self->why));
	EXPECT_STATUS(RD_STALL, self->rr) TH_LOG("%s", self->why);
	EXPECT_EQ(0U, self->rr.got);
	EXPECT_LE(TMO - 10, self->rr.waited_ms);
	EXPECT_GE(TMO + 100, self->rr.waited_ms);
}

TEST_F(rd, automount_retries_eagain_within_limit)
{
	FEED(0, NATIVE);
	ASSERT_EQ(0, fail_syscall(__NR_read, self->r, EAGAIN)) TH_LOG("%s", strerror(errno));
	automount_read_sized(self->r, self->out, sizeof(self->out), 304, TMO, &self->rr);
	read_describe(&self->rr, self->out, self->why, sizeof(self->why));
	EXPECT_STATUS(RD_STALL, self->rr) TH_LOG("%s", self->why);
	EXPECT_EQ(0U, self->rr.got);
	EXPECT_LE(TMO - 10, self->rr.waited_ms);
	EXPECT_GE(TMO + 100, self->rr.waited_ms);
}

/* Any other failure of read() is reported with its own errno. */
TEST_F(rd, read_error_keeps_its_errno)
{
	FEED(0, NATIVE);
	ASSERT_EQ(0, fail_syscall(__NR_read, self->r, EIO)) TH_LOG("%s", strerror(errno));
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	EXPECT_STATUS(RD_ERROR, self->rr);
	EXPECT_EQ(EIO, self->rr.err);
	automount_read_sized(self->r, self->out, sizeof(self->out), 304, TMO, &self->rr2);
	EXPECT_STATUS(RD_ERROR, self->rr2);
	EXPECT_EQ(EIO, self->rr2.err);
}

/* The validator, one mutation of a good lookup of a at a time. */
FIXTURE(garbled) {
	union pkt_buf in;
	struct pkt_expect ex;
};

FIXTURE_VARIANT(garbled) {
	void (*mutate)(struct autofs_v5_packet *p, struct pkt_expect *ex);
	size_t got;		/* bytes handed over; 0 means NATIVE */
	const char *reason;	/* must appear in why */
};

static void garbage(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	memset(p, 0xa5, sizeof(*p));
}

static void proto_v4(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->hdr.proto_version = 4;
}

static void type_42(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->hdr.type = 42;
}

static void expire_for_lookup(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->hdr.type = autofs_ptype_expire_indirect;
}

static void len_over_name_max(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->len = 300;
}

static void name_not_nul_at_len(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	strcpy(p->name, "ab");
	p->len = 1;
}

static void nul_inside_name(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->len = 2;
}

static void wrong_key(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	strcpy(p->name, "b");
}

static void token_zero(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->wait_queue_token = 0;
}

static void token_answered(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	static const autofs_wqt_t done[] = { 3, 7 };

	ex->answered = done;
	ex->n_answered = 2;
}

static void other_pid(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->pid = p->tgid = 999;
}

static void uid_1000(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->uid = 1000;
}

static void other_dev(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->dev = 7;
}

static void other_root(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	p->ino = 99;
}

static void fragment(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
	*ex = (struct pkt_expect){ .type = autofs_ptype_missing_indirect };
}

static void intact(struct autofs_v5_packet *p, struct pkt_expect *ex)
{
}

FIXTURE_VARIANT_ADD(garbled, garbage_bytes) {
	garbage, 0, "proto_version 2779096485" };
FIXTURE_VARIANT_ADD(garbled, v4_header) {
	proto_v4, 0, "proto_version 4, expected 5" };
FIXTURE_VARIANT_ADD(garbled, unknown_type) {
	type_42, 0, "type 42 (unknown)" };
FIXTURE_VARIANT_ADD(garbled, expire_where_lookup_asked) {
	expire_for_lookup, 0, "type 4 (expire_indirect), expected 3 (missing_indirect)" };
FIXTURE_VARIANT_ADD(garbled, len_over_name_max) {
	len_over_name_max, 0, "len 300 > NAME_MAX 255" };
FIXTURE_VARIANT_ADD(garbled, name_not_nul_terminated_at_len) {
	name_not_nul_at_len, 0, "name[1] is 0x62" };
FIXTURE_VARIANT_ADD(garbled, nul_inside_name) {
	nul_inside_name, 0, "strlen(name) 1 != len 2" };
FIXTURE_VARIANT_ADD(garbled, wrong_key) {
	wrong_key, 0, "name b, expected a" };
FIXTURE_VARIANT_ADD(garbled, zero_token) {
	token_zero, 0, "wait_queue_token 0" };
FIXTURE_VARIANT_ADD(garbled, answered_token) {
	token_answered, 0, "wait_queue_token 7 already answered" };
FIXTURE_VARIANT_ADD(garbled, other_pid) {
	other_pid, 0, "pid 999 tgid 999, expected 100" };
FIXTURE_VARIANT_ADD(garbled, non_root_uid) {
	uid_1000, 0, "uid 1000 gid 0" };
FIXTURE_VARIANT_ADD(garbled, other_device) {
	other_dev, 0, "dev 0x7, expected 0x2a (autofs root)" };
FIXTURE_VARIANT_ADD(garbled, other_autofs_root) {
	other_root, 0, "ino 99" };
FIXTURE_VARIANT_ADD(garbled, fragment_of_20_bytes) {
	fragment, 20, "only 20 bytes, a packet needs at least 45" };
/* a whole header, but the name's NUL is not among the bytes read */
FIXTURE_VARIANT_ADD(garbled, name_cut_short) {
	intact, 45, "len 1 but only 45 bytes read" };

FIXTURE_SETUP(garbled)
{
	fill_pkt(&self->in.p, autofs_ptype_missing_indirect, 7, "a", 100);
	self->ex = lookup_a(100);
}

FIXTURE_TEARDOWN(garbled)
{
}

TEST_F(garbled, refused)
{
	size_t got = variant->got ?: NATIVE;
	char why[200] = "";
	int r;

	variant->mutate(&self->in.p, &self->ex);
	r = packet_validate(self->in.b, got, &self->ex, why, sizeof(why));
	EXPECT_GT(0, r);
	EXPECT_HAS(why, variant->reason);
}

/* The 2012 break: 300 vs 304 bytes in a stream pipe, for each strategy. */
TEST_F(rd, systemd_given_304)
{
	int idx;

	FEED(0, WIDE);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr2);
	read_describe(&self->rr2, self->out, self->why2, sizeof(self->why2));
	EXPECT_EQ(0, idx) TH_LOG("%s", self->why);
	if (NATIVE == 300) {
		/* i386: reads fine, then 4 bytes are left */
		EXPECT_EQ(300U, self->rr.got);
		EXPECT_STATUS(RD_SHORT, self->rr2);
		EXPECT_EQ(4U, self->rr2.got);
		EXPECT_HAS(self->why2, "tail padding");
	} else {
		/* x86_64: read whole, nothing left */
		EXPECT_EQ(304U, self->rr.got);
		EXPECT_STATUS(RD_STALL, self->rr2);
		EXPECT_EQ(0U, self->rr2.got);
	}
}

/* Two 304-byte packets back to back, as a stream pipe merges them. */
TEST_F(rd, systemd_two_304_back_to_back)
{
	int idx2;

	FEED(0, 2 * WIDE);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr2);
	idx2 = VALIDATE(self->rr2, self->why2);
	EXPECT_STATUS(RD_OK, self->rr2);
	if (NATIVE == 300) {
		/* i386: the second arrives shifted and is refused */
		EXPECT_GT(0, idx2);
		EXPECT_HAS(self->why2, "shifted by 4 bytes");
	} else {
		EXPECT_EQ(0, idx2) TH_LOG("%s", self->why2);
	}
}

/* What the compat hack wrote: 300 bytes. */
TEST_F(rd, systemd_given_300)
{
	int idx;

	FEED(0, COMPAT);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	if (NATIVE == 300) {
		EXPECT_STATUS(RD_OK, self->rr);
		EXPECT_EQ(0, idx) TH_LOG("%s", self->why);
	} else {
		EXPECT_STATUS(RD_SHORT, self->rr);
		EXPECT_EQ(300U, self->rr.got);
		EXPECT_EQ(304U, self->rr.want);
	}
}

/* automount-style at its x86_64-kernel size: 304 per packet. */
TEST_F(rd, automount_x86_64_reads_two_304)
{
	size_t want = automount_kpkt_len("x86_64");
	int idx, idx2;

	FEED(0, 2 * WIDE);
	automount_read_sized(self->r, self->out, sizeof(self->out), want, TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	automount_read_sized(self->r, self->out, sizeof(self->out), want, TMO, &self->rr2);
	idx2 = VALIDATE(self->rr2, self->why2);
	EXPECT_STATUS(RD_OK, self->rr);
	EXPECT_STATUS(RD_OK, self->rr2);
	EXPECT_EQ(304U, self->rr.got);
	EXPECT_EQ(304U, self->rr2.got);
	EXPECT_EQ(0, idx) TH_LOG("%s", self->why);
	EXPECT_EQ(0, idx2) TH_LOG("%s", self->why2);
}

/* On a 32-bit kernel (uname i686) it wants exactly sizeof. */
TEST_F(rd, automount_native_reads_sizeof)
{
	int idx;

	FEED(0, NATIVE);
	automount_read_sized(self->r, self->out, sizeof(self->out),
			     automount_kpkt_len("i686"), TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	EXPECT_STATUS(RD_OK, self->rr);
	EXPECT_EQ(NATIVE, self->rr.got);
	EXPECT_EQ(0, idx) TH_LOG("%s", self->why);
}

/* Step 4: a packet pipe drops what a short read leaves. */
TEST_F(rd, packet_pipe_reads_two_304)
{
	int fds[2], idx, idx2;

	if (pipe2(fds, O_DIRECT | O_NONBLOCK) < 0)
		SKIP(return, "pipe2(O_DIRECT) unsupported");
	self->r = fds[0];
	self->w = fds[1];
	ASSERT_EQ(WIDE, write(self->w, self->in.b, WIDE));
	ASSERT_EQ(WIDE, write(self->w, self->in.b + WIDE, WIDE));
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr);
	idx = VALIDATE(self->rr, self->why);
	reader_systemd_style.read(self->r, self->out, sizeof(self->out), TMO, &self->rr2);
	idx2 = VALIDATE(self->rr2, self->why2);
	EXPECT_STATUS(RD_OK, self->rr);
	EXPECT_STATUS(RD_OK, self->rr2);
	EXPECT_EQ(0, idx) TH_LOG("%s", self->why);
	EXPECT_EQ(0, idx2) TH_LOG("%s", self->why2);
	EXPECT_EQ(0, pipe_queued(self->r));
}

/* packet-pipe's control: an ordinary pipe is a byte stream. */
TEST(pipe_trial_ordinary_pipe_is_a_stream)
{
	struct trial t = { .name = "ordinary" };

	ASSERT_EQ(0, pipe_trial(&t, 0, TMO)) TH_LOG("%s", t.failed);
	EXPECT_EQ(304, t.queued);
	EXPECT_TRUE(trial_stream(&t));
	EXPECT_FALSE(trial_packetized(&t));
}

/* A failed write says why with its own errno, not EIO. */
TEST(pipe_trial_keeps_the_errno_of_a_failed_write)
{
	struct trial t = { .name = "ordinary" };

	ASSERT_EQ(0, fail_syscall(__NR_write, -1, ENOSPC)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(-1, pipe_trial(&t, 0, TMO));
	EXPECT_EQ(ENOSPC, errno) TH_LOG("errno %d (%s)", errno, strerror(errno));
	EXPECT_HAS(t.failed, "write 1: No space left on device");
}

TEST(diagnose_shows_hex_fields_and_hint)
{
	unsigned char in[WIDE + 4];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_TRUE(f != NULL);
	memset(in, 0, 4);
	make_pkt(in + 4, autofs_ptype_missing_indirect, 7, "a", 100);
	packet_diagnose(f, "t", in, NATIVE);
	fclose(f);
	ASSERT_TRUE(text != NULL);
	EXPECT_HAS(text, "0: 00 00 00 00 05 00 00 00 03 00 00 00 07 00 00 00");
	EXPECT_HAS(text, "proto_version=0 type=5");
	EXPECT_HAS(text, "looks like: shifted");
	free(text);
}

TEST_HARNESS_MAIN
