# Step 1: the kernel writes 304-byte packets into a stream pipe.
# Run by scripts/gdb/gdb.sh (make gdb STEP=1, make kgdb STEP=1), which has
# loaded vmlinux, the kernel's gdb helpers and gdb-scripts/lab, and
# connected to the guest, stopped before init. Each lab-value line is a
# record that make test checks (steps/01-padding/gdb-checks); the
# lab-* moments are in gdb-scripts/lab/moments.gdb.

echo \n### 1. One header, two layouts: the kernel's (x86_64) ...\n
ptype /o struct autofs_v5_packet
lab-value kernel_sizeof sizeof(struct autofs_v5_packet)
lab-value kernel_name_offset (long) &((struct autofs_v5_packet *) 0)->name
echo \n### ... and the i386 daemon's, from the same <linux/auto_fs.h>\n
lab-ptype-i386 systemd-style struct autofs_v5_packet
lab-i386 systemd-style lab-value i386_sizeof sizeof(struct autofs_v5_packet)
lab-i386 systemd-style lab-value i386_name_offset (long) &((struct autofs_v5_packet *) 0)->name
echo \n### pahole says the same\n
lab-pahole autofs_v5_packet systemd-style

echo \n### 2. The kernel writes a request for the i386 daemon: 304 bytes\n
lab-autofs-write "systemd-style"

echo \n### 3. The i386 daemon reads 300 of them: 4 bytes stay for its next read()\n
lab-daemon-read 300
lab-done
