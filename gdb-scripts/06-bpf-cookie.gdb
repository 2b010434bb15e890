# Step 6: today's break. bpf() has no compat path: the kernel reads an
# i386 program's union bpf_attr with its own, x86_64 layout.
# Run by scripts/gdb/gdb.sh (make gdb STEP=6, make kgdb STEP=6), which has
# loaded vmlinux, the kernel's gdb helpers and gdb-scripts/lab, and
# connected to the guest, stopped before init. Each lab-value line is a
# record that make test checks (steps/06-bpf-cookie/gdb-checks).

echo \n### 1. One header, two layouts: link_create.tracing as the kernel has it (x86_64) ...\n
ptype /o ((union bpf_attr *) 0)->link_create.tracing
lab-value kernel_cookie_offset (long) &((union bpf_attr *) 0)->link_create.tracing.cookie
echo \n### ... and as the i386 program has it, from the same <linux/bpf.h> (its DWARF)\n
lab-i386 bpf-cookie ptype /o ((union bpf_attr *) 0)->link_create.tracing
lab-i386 bpf-cookie lab-value i386_cookie_offset (long) &((union bpf_attr *) 0)->link_create.tracing.cookie

echo \n### 2. The i386 program attaches: the cookie link_create() hands on\n
# bpf_tracing_prog_attach() takes the cookie as an argument, read from
# the kernel's copy of the attr; bpf-rawtp attaches through it too, with
# 0, hence the comm test (first: gdb types the right side of a && it
# skips without calling functions)
tbreak bpf_tracing_prog_attach if $_streq($lx_current(0)->comm, "bpf-cookie") && $lab_in_compat_syscall()
continue
bt 3
lab-value attach_comm $lx_current(0)->comm
lab-value attach_compat $lab_in_compat_syscall()
p/x bpf_cookie
lab-value attach_cookie bpf_cookie
echo \n### 3. The attr as the kernel copied it: the i386 cookie is at 20, the kernel read 24\n
# (link_create() is inlined into __sys_bpf(), whose copy attr points to)
frame function link_create
x/16xb (char *) attr + 16
p/x attr->link_create.tracing
lab-value attr_bytes_at_20 *(unsigned long long *) ((char *) attr + 20)
lab-value attr_bytes_at_24 *(unsigned long long *) ((char *) attr + 24)
lab-done
