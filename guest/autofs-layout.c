// SPDX-License-Identifier: GPL-2.0
/*
 * Where every field of struct autofs_v5_packet sits in the ABI this was
 * compiled for, and why sizeof differs: the fields end at byte 300 on both
 * i386 and x86_64, but sizeof rounds up to the struct's alignment, and
 * that is the alignment of its __u64 (4 on i386, 8 on x86_64).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet.h"
#include "result.h"

#define V5 struct autofs_v5_packet
#define HDR struct autofs_packet_hdr
#define FIELD(T, f) { #f, offsetof(T, f), sizeof(((T *)0)->f) }

struct field {
	const char *name;
	size_t offset, size;
};

/* How a __u64 is aligned inside a struct. */
struct u64_probe {
	char c;
	__u64 v;
};

int main(int argc, char **argv)
{
	struct lab_result r;
	static const struct field hdr[] = {
		FIELD(HDR, proto_version), FIELD(HDR, type),
	};
	static const struct field v5[] = {
		FIELD(V5, hdr), FIELD(V5, hdr.proto_version), FIELD(V5, hdr.type),
		FIELD(V5, wait_queue_token), FIELD(V5, dev), FIELD(V5, ino),
		FIELD(V5, uid), FIELD(V5, gid), FIELD(V5, pid), FIELD(V5, tgid),
		FIELD(V5, len), FIELD(V5, name),
	};
	size_t end = offsetof(V5, name) + sizeof(((V5 *)0)->name);
	size_t i;

	result_init(&r, 0, "autofs-layout", LAB_ABI);
	if (result_args(argc, argv, &r, NULL) < 0)
		return result_print(&r);

	printf("# struct autofs_v5_packet from <linux/auto_fs.h>, compiled for %s\n",
	       LAB_ABI);
	printf("# fields are at the same offsets on every ABI; sizeof rounds the\n"
	       "# 300 bytes of fields up to a multiple of the alignment of __u64 ino\n");
	for (i = 0; i < ARRAY_SIZE(hdr); i++)
		printf("LAYOUT abi=%s struct=autofs_packet_hdr field=%s offset=%zu size=%zu\n",
		       LAB_ABI, hdr[i].name, hdr[i].offset, hdr[i].size);
	printf("LAYOUT abi=%s struct=autofs_packet_hdr sizeof=%zu\n", LAB_ABI,
	       sizeof(HDR));
	for (i = 0; i < ARRAY_SIZE(v5); i++)
		printf("LAYOUT abi=%s field=%s offset=%zu size=%zu\n",
		       LAB_ABI, v5[i].name, v5[i].offset, v5[i].size);
	/*
	 * alignof_u64: where a __u64 lands in a struct, which is what
	 * counts; C11's _Alignof agrees, GCC's __alignof__ gives the
	 * preferred alignment of a __u64 on its own (8 on i386)
	 */
	printf("LAYOUT abi=%s sizeof=%zu end_of_name=%zu tail_padding=%zu alignof_u64=%zu c11_alignof_u64=%zu gnu_alignof_u64=%zu\n",
	       LAB_ABI, sizeof(V5), end, sizeof(V5) - end, offsetof(struct u64_probe, v),
	       (size_t)_Alignof(__u64), (size_t)__alignof__(__u64));

	/* want: where the fields end; got: what sizeof says */
	r.verdict = "measured";
	r.cause = sizeof(V5) == end ? "exact" : "padded";
	r.want = (long)end;
	r.got = (long)sizeof(V5);
	snprintf(r.detail, sizeof(r.detail), "fields end at %zu, sizeof %zu, __u64 aligned to %zu in a struct",
		 end, sizeof(V5), offsetof(struct u64_probe, v));
	return result_print(&r);
}
