# Step 1: the kernel writes 304-byte packets into a stream pipe.
# Run by steps/lib/gdb.sh (make gdb STEP=1, make kgdb STEP=1), which has
# loaded vmlinux, the kernel's gdb helpers and gdb-scripts/lab.py, and
# connected to the guest, stopped before init.

# patch 0001 took packet mode, and its flag, out of this kernel
set lab-packet-flag off
# $lx_current(0): the task on CPU 0, the lab kernel's only CPU. Without
# the 0 the helper must find out the CPU, which it cannot do under kgdb
# on a kernel without SMP.

echo \n### 1. One header, two layouts: the kernel's (x86_64) ...\n
ptype /o struct autofs_v5_packet
echo \n### ... and the i386 daemon's, from the same <linux/auto_fs.h>\n
lab-ptype-i386 systemd-style struct autofs_v5_packet
echo \n### pahole says the same\n
lab-pahole autofs_v5_packet systemd-style

# __kernel_write() is the first non-inlined call on autofs's way to the
# pipe (autofs_write() is inlined); unpacking the initramfs calls it
# too, hence the caller check. The writer is a client forked by the
# daemon: an i386 client named systemd-style means a request for the
# i386 systemd-style daemon. $lx_current(0)->comm comes first: gdb
# types the right side of a && it skips without calling functions, and
# then ->comm of a dummy int is an error.
echo \n### 2. The kernel writes a request for the i386 daemon\n
tbreak __kernel_write if $_streq($lx_current(0)->comm, "systemd-style") && $lab_in_compat_syscall() && $_any_caller_matches("^autofs_", 3)
continue
bt 4
p $lx_current(0)->comm
p count
set $pipe = (struct pipe_inode_info *) file->private_data

# The daemon reads with read(fd, buf, 300). Only now, with a packet in
# flight, is pipe_read() worth stopping in: busybox's pipes never pass
# this condition, but would cost a stop each before it.
echo \n### 3. The i386 daemon reads 300 bytes of it\n
tbreak pipe_read if iocb->ki_filp->private_data == $pipe && to->count == 300
continue
p $lx_current(0)->comm
p $lab_in_compat_syscall()
p to->count
set $buf = &$pipe->bufs[$pipe->tail & ($pipe->ring_size - 1)]
p *$buf
lab-pipe-buf $buf
finish
echo \n### after the read: 4 bytes are left for the next read()\n
p *$buf
lab-pipe-buf $buf
lab-done
