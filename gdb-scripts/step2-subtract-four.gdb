# Step 2: the kernel writes 300 bytes to a compat (32-bit) daemon.
# Run by steps/lib/gdb.sh (make gdb STEP=2, make kgdb STEP=2), which has
# loaded vmlinux, the kernel's gdb helpers and gdb-scripts/lab.py, and
# connected to the guest, stopped before init.
#
# $lx_current(0): the task on CPU 0, the lab kernel's only CPU (under
# kgdb, on a kernel without SMP, the helper cannot find the CPU itself).

# autofs_wait() is global and sbi is its first argument, so both
# resolve at its entry. The client of an i386 daemon is a fork of it,
# an i386 process too: the compat test picks the i386 daemon's mount,
# whatever order the guest runs its programs in.
echo \n### 1. A client of the i386 systemd-style daemon waits for /auto/a\n
tbreak autofs_wait if $_streq($lx_current(0)->comm, "systemd-style") && $lab_in_compat_syscall()
continue
p $lx_current(0)->comm
p $lx_current(0)->pid
echo \n### what the kernel noted when the daemon mounted /auto\n
p sbi->compat_daemon
p sbi->oz_pgrp->numbers[0].nr
echo 
### the daemon (process group above) and its client, among all tasks

lx-ps

# autofs_v5_packet_size() is noinline, but GCC made a clone of it
# (autofs_v5_packet_size.isra.0) that takes compat_daemon rather than
# sbi: sbi is <optimized out> inside. Its return value is not: finish.
echo \n### 2. The size of the packet the kernel is about to write\n
tbreak autofs_v5_packet_size
continue
bt 3
finish
lab-done
