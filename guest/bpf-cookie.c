// SPDX-License-Identifier: GPL-2.0
/*
 * Does a BPF link's cookie reach its program?  An fentry program on
 * do_unlinkat stores bpf_get_attach_cookie() in a map when this process
 * unlinks a file.  bpf-cookie attaches it with BPF_LINK_CREATE and a
 * cookie in link_create.tracing.cookie: a plain __u64 after a __u32, at
 * offset 20 of union bpf_attr on i386 and 24 on x86_64 and x32, while
 * bpf() has no compat path: the kernel reads 24 from everyone.
 * bpf-rawtp, the control, attaches the same program with
 * BPF_RAW_TRACEPOINT_OPEN, which has no cookie field: it must see 0.
 * One source, two programs: -DATTACH=ATTACH_LINK or ATTACH_RAWTP.
 * Raw bpf() only, every attr zeroed and filled field by field, its size
 * that of this ABI's union bpf_attr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "abi.h"
#include "compiler.h"
#include "result.h"

/* Every byte different, so that a cookie read from elsewhere shows where. */
#define LAB_COOKIE 0x1122334455667788ULL
/* Slot 0 before the trigger: still there means the program never ran. */
#define LAB_SENTINEL 0x5e5e5e5e5e5e5e5eULL
#define LAB_FUNC "do_unlinkat"
#define LAB_NAME "lab_cookie"	/* the map's and the program's, for bpftool */
#define BTF_VMLINUX "/sys/kernel/btf/vmlinux"
#define BTF_MAX_BYTES (256U << 20)
#define LOG_SHOWN 2048		/* the end of the verifier log: its verdict */

enum { ATTACH_LINK, ATTACH_RAWTP };

#ifndef ATTACH
#error "build with -DATTACH=ATTACH_LINK (bpf-cookie) or -DATTACH=ATTACH_RAWTP (bpf-rawtp)"
#endif

/* How a __u64 is aligned inside a struct: 4 on i386, 8 on x86_64 and x32. */
struct u64_probe {
	__u32 c;
	__u64 v;
};

/* Instructions, as the kernel's filter.h writes them; only those needed. */
#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ALU64_IMM(op, d, i)	INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define JNE_IMM(d, i, o)	INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define STX_DW(d, s, o)		INSN(BPF_STX | BPF_DW | BPF_MEM, d, s, o, 0)
#define ST_W(d, o, i)		INSN(BPF_ST | BPF_W | BPF_MEM, d, 0, o, i)
/* a 64-bit load takes two slots: the map's fd, then the upper half, 0 */
#define LD_MAP_FD(d, fd)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define LD_IMM64_HI(i)		INSN(0, 0, 0, 0, i)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* The two ways to attach, and what each puts into its attr. */
struct attach {
	const char *name;	/* the program: the RESULT line's reader */
	const char *call;	/* the bpf() command */
	int cmd;
	bool cookie;		/* whether that command carries a cookie */
	void (*fill)(union bpf_attr *a, int prog_fd, __u64 cookie);
};

static void fill_link(union bpf_attr *a, int prog_fd, __u64 cookie)
{
	a->link_create.prog_fd = prog_fd;
	/* no target program, no target id: the program's attach_btf_id */
	a->link_create.target_fd = 0;
	a->link_create.attach_type = BPF_TRACE_FENTRY;
	a->link_create.tracing.cookie = cookie;
}

static void fill_rawtp(union bpf_attr *a, int prog_fd, __u64 cookie)
{
	(void)cookie;	/* nowhere to put it */
	/* no name: a tracing program's target is its own attach_btf_id */
	a->raw_tracepoint.name = 0;
	a->raw_tracepoint.prog_fd = prog_fd;
}

static const struct attach attaches[] = {
	[ATTACH_LINK] = { "bpf-cookie", "BPF_LINK_CREATE", BPF_LINK_CREATE, true, fill_link },
	[ATTACH_RAWTP] = { "bpf-rawtp", "BPF_RAW_TRACEPOINT_OPEN", BPF_RAW_TRACEPOINT_OPEN,
			   false, fill_rawtp },
};

static const struct attach *how = &attaches[ATTACH];

struct opts {
	__u64 cookie;
	const char *btf_file;	/* --btf-file: another file than the kernel's */
	bool btf_only;		/* --btf-only: the BTF walk alone, no bpf() */
};

/* What the BTF walk found, or why it could not. */
struct btf_find {
	__u32 id;		/* the BTF_KIND_FUNC named LAB_FUNC */
	__u32 found;		/* how many such */
	__u32 types;		/* types in the file */
	char why[RESULT_DETAIL_MAX - 32];	/* leaves room for "BTF <path>: " */
};

/* Trailing records after a struct btf_type, per kind (6.1's linux/btf.h). */
struct btf_kind {
	const char *name;	/* NULL: a kind 6.1 does not define */
	size_t fixed;		/* bytes, whatever vlen says */
	size_t per_vlen;	/* bytes per vlen */
	bool named;		/* each record starts with a name_off */
};

static const struct btf_kind btf_kinds[] = {
	[BTF_KIND_INT] = { "INT", sizeof(__u32) },
	[BTF_KIND_PTR] = { "PTR" },
	[BTF_KIND_ARRAY] = { "ARRAY", sizeof(struct btf_array) },
	[BTF_KIND_STRUCT] = { "STRUCT", 0, sizeof(struct btf_member), true },
	[BTF_KIND_UNION] = { "UNION", 0, sizeof(struct btf_member), true },
	[BTF_KIND_ENUM] = { "ENUM", 0, sizeof(struct btf_enum), true },
	[BTF_KIND_FWD] = { "FWD" },
	[BTF_KIND_TYPEDEF] = { "TYPEDEF" },
	[BTF_KIND_VOLATILE] = { "VOLATILE" },
	[BTF_KIND_CONST] = { "CONST" },
	[BTF_KIND_RESTRICT] = { "RESTRICT" },
	[BTF_KIND_FUNC] = { "FUNC" },
	[BTF_KIND_FUNC_PROTO] = { "FUNC_PROTO", 0, sizeof(struct btf_param), true },
	[BTF_KIND_VAR] = { "VAR", sizeof(struct btf_var) },
	[BTF_KIND_DATASEC] = { "DATASEC", 0, sizeof(struct btf_var_secinfo) },
	[BTF_KIND_FLOAT] = { "FLOAT" },
	[BTF_KIND_DECL_TAG] = { "DECL_TAG", sizeof(struct btf_decl_tag) },
	[BTF_KIND_TYPE_TAG] = { "TYPE_TAG" },
	[BTF_KIND_ENUM64] = { "ENUM64", 0, sizeof(struct btf_enum64), true },
};

static __printf(2, 3) int btf_bad(struct btf_find *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* The buffer may be anywhere: no __u32 is read in place. */
static __u32 get_u32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A section, given from the end of the header, must lie inside the file. */
static int btf_section(struct btf_find *f, const char *what, const struct btf_header *h,
		       __u32 off, __u32 len, size_t size)
{
	unsigned long long end = (unsigned long long)h->hdr_len + off + len;

	if (end > size)
		return btf_bad(f, "the %s section (%u bytes at %u after the %u-byte header) ends at byte %llu, past the file's %zu: truncated?",
			       what, len, off, h->hdr_len, end, size);
	return 0;
}

/* A name_off must point into the string section, at a NUL-terminated string. */
static int btf_name(struct btf_find *f, const unsigned char *strs, __u32 str_len,
		    __u32 off, __u32 id, const char *what)
{
	if (off >= str_len)
		return btf_bad(f, "type %u: %s offset %u is past the string section's %u bytes",
			       id, what, off, str_len);
	if (!memchr(strs + off, '\0', str_len - off))
		return btf_bad(f, "type %u: %s at string offset %u has no NUL before the section ends",
			       id, what, off);
	return 0;
}

/*
 * Walk a raw BTF file (what /sys/kernel/btf/vmlinux holds) for the one
 * BTF_KIND_FUNC called name, checking every header field, every type
 * record and every name on the way.  Ids start at 1: 0 is void.
 */
static int btf_find_func(const unsigned char *data, size_t size, const char *name,
			 struct btf_find *f)
{
	const unsigned char *types, *strs;
	struct btf_header h;
	size_t pos, i;
	__u32 id;

	memset(f, 0, sizeof(*f));
	if (size < sizeof(h))
		return btf_bad(f, "%zu bytes, fewer than the %zu of struct btf_header", size,
			       sizeof(h));
	memcpy(&h, data, sizeof(h));
	if (h.magic == __builtin_bswap16(BTF_MAGIC))
		return btf_bad(f, "magic 0x%04x: BTF of the other byte order", h.magic);
	if (h.magic != BTF_MAGIC)
		return btf_bad(f, "magic 0x%04x, not 0x%04x: not BTF", h.magic, BTF_MAGIC);
	if (h.version != BTF_VERSION)
		return btf_bad(f, "BTF version %u, not %u", h.version, BTF_VERSION);
	if (h.hdr_len < sizeof(h) || h.hdr_len > size)
		return btf_bad(f, "hdr_len %u: not between struct btf_header's %zu and the file's %zu bytes",
			       h.hdr_len, sizeof(h), size);
	/* a longer header than 6.1's: only zeros in what it does not know */
	for (i = sizeof(h); i < h.hdr_len; i++)
		if (data[i])
			return btf_bad(f, "hdr_len %u: byte %zu of the header is 0x%02x, in a field struct btf_header does not have",
				       h.hdr_len, i, data[i]);
	if (btf_section(f, "type", &h, h.type_off, h.type_len, size) ||
	    btf_section(f, "string", &h, h.str_off, h.str_len, size))
		return -1;
	if (h.type_off % sizeof(__u32))
		return btf_bad(f, "type_off %u is not a multiple of 4", h.type_off);
	if (h.type_len && h.str_len && h.type_off < (unsigned long long)h.str_off + h.str_len &&
	    h.str_off < (unsigned long long)h.type_off + h.type_len)
		return btf_bad(f, "the type section (%u+%u) and the string section (%u+%u) overlap",
			       h.type_off, h.type_len, h.str_off, h.str_len);
	types = data + h.hdr_len + h.type_off;
	strs = data + h.hdr_len + h.str_off;
	/* name_off 0 is the empty name; every string ends in the section */
	if (!h.str_len || strs[0] || strs[h.str_len - 1])
		return btf_bad(f, "the %u-byte string section does not start and end with a NUL",
			       h.str_len);

	for (pos = 0, id = 1; pos < h.type_len; id++) {
		const struct btf_kind *k;
		struct btf_type t;
		__u32 kind, vlen;
		size_t extra;

		if (id > BTF_MAX_TYPE)
			return btf_bad(f, "more than BTF_MAX_TYPE (%u) types", BTF_MAX_TYPE);
		if (h.type_len - pos < sizeof(t))
			return btf_bad(f, "type %u at byte %zu of the type section: its %zu-byte struct btf_type passes the section's end at %u",
				       id, pos, sizeof(t), h.type_len);
		memcpy(&t, types + pos, sizeof(t));
		kind = BTF_INFO_KIND(t.info);
		vlen = BTF_INFO_VLEN(t.info);
		if (kind >= ARRAY_SIZE(btf_kinds) || !btf_kinds[kind].name)
			return btf_bad(f, "type %u at byte %zu of the type section has kind %u (info 0x%08x), unknown to 6.1's linux/btf.h (1-%zu): its length, so every later type, is unknown",
				       id, pos, kind, t.info, ARRAY_SIZE(btf_kinds) - 1);
		k = &btf_kinds[kind];
		extra = k->fixed + (size_t)vlen * k->per_vlen;
		if (h.type_len - pos - sizeof(t) < extra)
			return btf_bad(f, "type %u (%s, vlen %u) at byte %zu of the type section needs %zu bytes, past the section's end at %u",
				       id, k->name, vlen, pos, sizeof(t) + extra, h.type_len);
		if (btf_name(f, strs, h.str_len, t.name_off, id, "its name"))
			return -1;
		for (i = 0; k->named && i < vlen; i++)
			if (btf_name(f, strs, h.str_len,
				     get_u32(types + pos + sizeof(t) + i * k->per_vlen), id,
				     "a member's name"))
				return -1;
		if (kind == BTF_KIND_FUNC && !strcmp((const char *)strs + t.name_off, name) &&
		    !f->found++)
			f->id = id;
		pos += sizeof(t) + extra;
	}
	f->types = id - 1;
	if (f->found != 1)
		return btf_bad(f, "%u BTF_KIND_FUNC named %s among %u types, not exactly one",
			       f->found, name, f->types);
	return 0;
}

/* The whole file: sysfs says nothing reliable about its size beforehand. */
static int btf_lookup(const char *path, const char *name, struct btf_find *f)
{
	unsigned char *data = NULL, *more;
	size_t size = 0, cap = 0;
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return btf_bad(f, "open: %s", strerror(errno));
	for (;;) {
		if (size == cap) {
			cap = cap ? 2 * cap : 1U << 20;
			more = cap <= BTF_MAX_BYTES ? realloc(data, cap) : NULL;
			if (!more) {
				ret = btf_bad(f, "%zu bytes read and more to come: no room (at most %u)",
					      size, BTF_MAX_BYTES);
				goto out;
			}
			data = more;
		}
		n = read(fd, data + size, cap - size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = btf_bad(f, "read at byte %zu: %s", size, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		size += (size_t)n;
	}
	ret = btf_find_func(data, size, name, f);
out:
	free(data);
	close(fd);
	return ret;
}

static __u64 ptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

/* The size is this ABI's: the kernel gets exactly what this program built. */
static int sys_bpf(int cmd, union bpf_attr *a)
{
	return (int)syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = sizeof(__u32);
	a.value_size = sizeof(__u64);
	a.max_entries = 1;
	memcpy(a.map_name, LAB_NAME, sizeof(LAB_NAME));
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int map_update(int map_fd, __u32 key, __u64 value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = map_fd;
	a.key = ptr(&key);
	a.value = ptr(&value);
	a.flags = BPF_ANY;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
}

static int map_lookup(int map_fd, __u32 key, __u64 *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = map_fd;
	a.key = ptr(&key);
	a.value = ptr(value);
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

/* The instruction whose jump skips to the end for any other process. */
#define TGID_CHECK 3

/*
 * fentry on the function of btf_id: in this process (tgid) only,
 * slot 0 of the map = bpf_get_attach_cookie(ctx).
 */
static int prog_load(int map_fd, __u32 btf_id, __u32 tgid, char *log, size_t log_size)
{
	struct bpf_insn insns[] = {
		MOV64_REG(BPF_REG_6, BPF_REG_1),	/* ctx: r1 does not survive a call */
		CALL(BPF_FUNC_get_current_pid_tgid),
		ALU64_IMM(BPF_RSH, BPF_REG_0, 32),	/* the tgid half */
		JNE_IMM(BPF_REG_0, (__s32)tgid, 0),	/* TGID_CHECK: offset set below */
		MOV64_REG(BPF_REG_1, BPF_REG_6),
		CALL(BPF_FUNC_get_attach_cookie),
		STX_DW(BPF_REG_10, BPF_REG_0, -8),	/* the value */
		ST_W(BPF_REG_10, -12, 0),		/* the key: slot 0 */
		LD_MAP_FD(BPF_REG_1, map_fd),
		LD_IMM64_HI(0),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ALU64_IMM(BPF_ADD, BPF_REG_2, -12),
		MOV64_REG(BPF_REG_3, BPF_REG_10),
		ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
		MOV64_IMM(BPF_REG_4, BPF_ANY),
		CALL(BPF_FUNC_map_update_elem),
		MOV64_IMM(BPF_REG_0, 0),
		EXIT(),
	};
	union bpf_attr a;

	/* another process's unlink jumps to the last two: return 0 */
	insns[TGID_CHECK].off = ARRAY_SIZE(insns) - 2 - (TGID_CHECK + 1);

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = BPF_TRACE_FENTRY;
	a.attach_btf_id = btf_id;
	a.insns = ptr(insns);
	a.insn_cnt = ARRAY_SIZE(insns);
	a.license = ptr("GPL");
	a.log_level = 1;
	a.log_buf = ptr(log);
	a.log_size = log_size;
	memcpy(a.prog_name, LAB_NAME, sizeof(LAB_NAME));
	log[0] = '\0';
	return sys_bpf(BPF_PROG_LOAD, &a);
}

/* The experiment's state: what is open, what was sent and seen. */
struct run {
	struct lab_result *r;
	int map_fd, prog_fd, link_fd;
	__u32 btf_id;
	__u64 sent;
	__u64 seen;
	bool have_seen;
	union bpf_attr attr;	/* the attach call's attr, as sent: the evidence */
};

static int setup_failed(struct run *run, const char *call)
{
	const char *err = strerror(errno);

	fprintf(stderr, "%s: %s failed: %s\n", how->name, call, err);
	run->r->verdict = "error";
	run->r->cause = "setup";
	snprintf(run->r->detail, sizeof(run->r->detail), "%s: %s", call, err);
	return -1;
}

/* The log's end, where the verifier says why, trailing newlines gone. */
static void show_log(struct run *run, char *log, size_t size)
{
	size_t len = strnlen(log, size);
	const char *last;
	char *d = run->r->detail;
	size_t used;

	while (len && (log[len - 1] == '\n' || log[len - 1] == ' '))
		log[--len] = '\0';
	if (!len)
		return;
	fprintf(stderr, "%s: the verifier's log%s:\n%s\n", how->name,
		len > LOG_SHOWN ? ", its end" : "", log + (len > LOG_SHOWN ? len - LOG_SHOWN : 0));
	last = strrchr(log, '\n');
	last = last ? last + 1 : log;
	used = strlen(d);
	snprintf(d + used, RESULT_DETAIL_MAX - used, "; verifier: %s", last);
}

/* A fresh file in /tmp, unlinked: do_unlinkat runs in this process. */
static int trigger(struct run *run)
{
	char path[] = "/tmp/bpf-cookie.XXXXXX";
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		return setup_failed(run, "mkstemp in /tmp");
	close(fd);
	run->r->packets = 1;
	if (unlink(path) < 0)
		return setup_failed(run, "unlink");
	return 0;
}

static int experiment(struct run *run)
{
	static char log[64 << 10];

	run->map_fd = map_create();
	if (run->map_fd < 0)
		return setup_failed(run, "BPF_MAP_CREATE");
	run->prog_fd = prog_load(run->map_fd, run->btf_id, (__u32)getpid(), log, sizeof(log));
	if (run->prog_fd < 0) {
		setup_failed(run, "BPF_PROG_LOAD");
		show_log(run, log, sizeof(log));
		return -1;
	}
	if (map_update(run->map_fd, 0, LAB_SENTINEL) < 0)
		return setup_failed(run, "BPF_MAP_UPDATE_ELEM");

	memset(&run->attr, 0, sizeof(run->attr));
	how->fill(&run->attr, run->prog_fd, run->sent);
	run->link_fd = sys_bpf(how->cmd, &run->attr);
	if (run->link_fd < 0)
		return setup_failed(run, how->call);

	if (trigger(run) < 0)
		return -1;
	if (map_lookup(run->map_fd, 0, &run->seen) < 0)
		return setup_failed(run, "BPF_MAP_LOOKUP_ELEM");
	run->have_seen = true;
	return 0;
}

static __u64 le64(const unsigned char *b)
{
	__u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

/*
 * Where in the attr the kernel may have taken v from: every offset whose
 * 8 bytes, little-endian, are v, on stderr; the one aligned to 4, or -1
 * if none is, or several.
 */
static long find_read_at(const union bpf_attr *a, __u64 v)
{
	const unsigned char *b = (const unsigned char *)a;
	unsigned int all = 0, aligned = 0;
	long at = -1;
	size_t k;

	for (k = 0; k + sizeof(v) <= sizeof(*a); k++) {
		if (le64(b + k) != v)
			continue;
		all++;
		if (k % 4 == 0) {
			aligned++;
			at = (long)k;
		}
	}
	if (aligned == 1)
		fprintf(stderr, "%s: 0x%016llx is the 8 bytes at offset %ld of the attr\n",
			how->name, (unsigned long long)v, at);
	else if (!all)
		fprintf(stderr, "%s: 0x%016llx is not the 8 bytes at any offset of the attr\n",
			how->name, (unsigned long long)v);
	else
		fprintf(stderr, "%s: 0x%016llx is the 8 bytes at %u offsets of the attr, %u of them aligned to 4: none is the one\n",
			how->name, (unsigned long long)v, all, aligned);
	return aligned == 1 ? at : -1;
}

static void judge(struct run *run, long at, long *read_at)
{
	struct lab_result *r = run->r;
	__u64 sent = run->sent, seen = run->seen;
	char sent_how[96];

	if (how->cookie)
		snprintf(sent_how, sizeof(sent_how), "cookie 0x%016llx written at offset %ld of a %zu-byte union bpf_attr",
			 (unsigned long long)sent, at, sizeof(union bpf_attr));
	else
		snprintf(sent_how, sizeof(sent_how), "%s, no cookie in its %zu-byte union bpf_attr",
			 how->call, sizeof(union bpf_attr));

	if (seen == LAB_SENTINEL) {
		r->verdict = "error";
		r->cause = "silent";
		snprintf(r->detail, sizeof(r->detail), "slot 0 still holds the sentinel 0x%016llx after unlink(): the fentry program on %s (BTF id %u) never ran",
			 LAB_SENTINEL, LAB_FUNC, run->btf_id);
		return;
	}
	*read_at = find_read_at(&run->attr, seen);
	if (seen == sent) {
		r->verdict = "ok";
		r->cause = "none";
		snprintf(r->detail, sizeof(r->detail), "%s; the kernel's bpf_get_attach_cookie() returned 0x%016llx, %s",
			 sent_how, (unsigned long long)seen,
			 how->cookie ? "as sent" : "as it must without a cookie");
	} else if (*read_at >= 0) {
		r->verdict = "broken";
		r->cause = "misplaced";
		snprintf(r->detail, sizeof(r->detail), "%s; the kernel's bpf_get_attach_cookie() returned 0x%016llx, the 8 bytes at offset %ld",
			 sent_how, (unsigned long long)seen, *read_at);
	} else {
		r->verdict = "broken";
		r->cause = "lost";
		snprintf(r->detail, sizeof(r->detail), "%s; the kernel's bpf_get_attach_cookie() returned 0x%016llx, which no one 4-aligned offset of the attr holds",
			 sent_how, (unsigned long long)seen);
	}
}

static void show_attr(const union bpf_attr *a)
{
	const unsigned char *b = (const unsigned char *)a;
	char hex[16 * 3 + 1];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(hex + 3 * i, sizeof(hex) - 3 * i, " %02x", b[16 + i]);
	fprintf(stderr, "%s: %s's attr, bytes 16..31:%s\n", how->name, how->call, hex);
}

static int parse_cookie(const char *s, __u64 *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would take a sign or blanks: a cookie is digits */
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v == LAB_SENTINEL)
		return -1;
	*out = v;
	return 0;
}

/* said: result_args() already printed its usage, of --step only */
static int bad_usage(struct lab_result *r, bool said)
{
	const char *more = how->cookie ? " [--cookie C]" : "";

	if (!said)
		fprintf(stderr, "usage: %s --step N%s   (N: the lab step, 0-99)\n", how->name, more);
	if (how->cookie)
		fprintf(stderr, "  --cookie C: the cookie, 0x%016llx if not given; any 64-bit number but the sentinel 0x%016llx\n",
			LAB_COOKIE, LAB_SENTINEL);
	r->verdict = "error";
	r->cause = "usage";
	snprintf(r->detail, sizeof(r->detail), "usage: %s --step N%s", how->name, more);
	return -1;
}

/*
 * --step N for result_args(); --cookie C (bpf-cookie only) and the
 * hidden --btf-file PATH --btf-only, which walks a BTF file and stops.
 */
static int parse_args(int argc, char **argv, struct lab_result *r, struct opts *o)
{
	bool have_cookie = false;
	char **rest;
	int i, n = 0, ret;

	rest = calloc(argc + 1, sizeof(*rest));
	if (!rest)
		return bad_usage(r, false);
	rest[n++] = argv[0];
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--btf-only")) {
			o->btf_only = true;
		} else if (!strcmp(argv[i], "--btf-file") && i + 1 < argc && !o->btf_file) {
			o->btf_file = argv[++i];
		} else if (how->cookie && !strcmp(argv[i], "--cookie") && i + 1 < argc &&
			   !have_cookie) {
			if (parse_cookie(argv[++i], &o->cookie) < 0)
				break;
			have_cookie = true;
		} else {
			rest[n++] = argv[i];
			/* a value may look like an option: keep it with its own */
			if (!strcmp(argv[i], "--step") && i + 1 < argc)
				rest[n++] = argv[++i];
		}
	}
	if (i < argc || (o->btf_file && !o->btf_only))
		ret = bad_usage(r, false);
	else if (o->btf_only)
		ret = n == 1 ? 0 : bad_usage(r, false);
	else if (result_args(n, rest, r, NULL) < 0)
		ret = bad_usage(r, true);
	else
		ret = 0;
	free(rest);
	return ret;
}

/* --btf-only: the id, or why there is none, and no bpf() at all. */
static int btf_only(const char *path)
{
	struct btf_find f;

	if (btf_lookup(path, LAB_FUNC, &f) < 0) {
		fprintf(stderr, "%s: BTF %s: %s\n", how->name, path, f.why);
		return 2;
	}
	printf("BTF file=%s types=%u func=%s id=%u\n", path, f.types, LAB_FUNC, f.id);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .cookie = LAB_COOKIE };
	struct run run = { .map_fd = -1, .prog_fd = -1, .link_fd = -1 };
	long at = -1, read_at = -1;
	struct lab_result r;
	struct btf_find f;

	result_init(&r, 0, how->name, LAB_ABI);
	if (parse_args(argc, argv, &r, &o) < 0)
		return result_print(&r);
	if (o.btf_only)
		return btf_only(o.btf_file ? o.btf_file : BTF_VMLINUX);
	run.r = &r;
	run.sent = how->cookie ? o.cookie : 0;
	if (how->cookie)
		at = offsetof(union bpf_attr, link_create.tracing.cookie);

	fprintf(stderr, "%s: %s build: sizeof(union bpf_attr) %zu; link_create.tracing.target_btf_id at %zu, its __u64 cookie at %zu (a __u64 is aligned to %zu in a struct here)\n",
		how->name, LAB_ABI, sizeof(union bpf_attr),
		offsetof(union bpf_attr, link_create.tracing.target_btf_id),
		offsetof(union bpf_attr, link_create.tracing.cookie),
		offsetof(struct u64_probe, v));
	if (btf_lookup(BTF_VMLINUX, LAB_FUNC, &f) < 0) {
		fprintf(stderr, "%s: BTF %s: %s\n", how->name, BTF_VMLINUX, f.why);
		r.cause = "setup";
		snprintf(r.detail, sizeof(r.detail), "BTF %s: %s", BTF_VMLINUX, f.why);
	} else {
		run.btf_id = f.id;
		fprintf(stderr, "%s: BTF: %s is type %u of %u in %s\n", how->name, LAB_FUNC, f.id,
			f.types, BTF_VMLINUX);
		if (experiment(&run) == 0) {
			show_attr(&run.attr);
			fprintf(stderr, "%s: sent 0x%016llx%s; slot 0 then held 0x%016llx (the sentinel was 0x%016llx)\n",
				how->name, (unsigned long long)run.sent,
				how->cookie ? "" : " (there is no cookie field)",
				(unsigned long long)run.seen, LAB_SENTINEL);
			judge(&run, at, &read_at);
		}
	}
	if (run.link_fd >= 0)
		close(run.link_fd);
	if (run.prog_fd >= 0)
		close(run.prog_fd);
	if (run.map_fd >= 0)
		close(run.map_fd);

	result_value(&r, "sent", run.sent, 1);
	if (run.have_seen)
		result_value(&r, "seen", run.seen, 1);
	else
		result_unknown(&r, "seen");
	if (at >= 0)
		result_value(&r, "at", at, 0);
	else
		result_unknown(&r, "at");
	if (read_at >= 0)
		result_value(&r, "read_at", read_at, 0);
	else
		result_unknown(&r, "read_at");
	return result_print(&r);
}
