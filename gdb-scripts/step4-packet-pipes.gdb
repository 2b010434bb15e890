# Step 4: packetized pipes. The kernel writes 304 bytes, a 300-byte read
# takes one packet and the rest of it is thrown away.
# Run by steps/lib/gdb.sh (make gdb STEP=4, make kgdb STEP=4), which has
# loaded vmlinux, the kernel's gdb helpers and gdb-scripts/lab.py, and
# connected to the guest, stopped before init.
#
# $lx_current(0): the task on CPU 0, the lab kernel's only CPU (under
# kgdb, on a kernel without SMP, the helper cannot find the CPU itself).

# __kernel_write() is the first non-inlined call on autofs's way to the
# pipe (autofs_write() is inlined); unpacking the initramfs calls it
# too, hence the caller check. The writer is a client forked by the
# daemon: an i386 client named systemd-style means a request for the
# i386 systemd-style daemon. $lx_current(0)->comm comes first: gdb
# types the right side of a && it skips without calling functions, and
# then ->comm of a dummy int is an error.
echo \n### 1. The kernel writes a request for the i386 daemon\n
tbreak __kernel_write if $_streq($lx_current(0)->comm, "systemd-style") && $lab_in_compat_syscall() && $_any_caller_matches("^autofs_", 3)
continue
bt 4
p $lx_current(0)->comm
p count
echo \n### autofs_prepare_pipe() set O_DIRECT (040000) on the pipe: packet mode\n
p/o file->f_flags & 040000
set $pipe = (struct pipe_inode_info *) file->private_data

# Only now, with a packet in flight, is pipe_read() worth stopping in:
# busybox's pipes never pass this condition, but would cost a stop each
# before it.
echo \n### 2. The i386 daemon reads 300 bytes of it\n
tbreak pipe_read if iocb->ki_filp->private_data == $pipe && to->count == 300
continue
p $lx_current(0)->comm
p $lab_in_compat_syscall()
p to->count
set $buf = &$pipe->bufs[$pipe->tail & ($pipe->ring_size - 1)]
p *$buf
lab-pipe-buf $buf
finish
echo \n### after the read: len 0, the 4 bytes of padding are gone\n
p *$buf
lab-pipe-buf $buf
lab-done
