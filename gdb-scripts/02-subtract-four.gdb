# Step 2: the kernel writes 300 bytes to a compat (32-bit) daemon.
# Run by scripts/gdb/gdb.sh (make gdb STEP=2, make kgdb STEP=2), which has
# loaded vmlinux, the kernel's gdb helpers and gdb-scripts/lab, and
# connected to the guest, stopped before init. Each lab-value line is a
# record that make test checks (steps/02-subtract-four/gdb-checks).
#
# $lx_current(0): the task on CPU 0, the lab kernel's only CPU (under
# kgdb, on a kernel without SMP, the helper cannot find the CPU itself).

# autofs_wait() is global and sbi is its first argument, so both
# resolve at its entry. The client of a daemon is a fork of it, so an
# i386 client named systemd-style asks the i386 systemd-style daemon:
# the first such lookup, whatever order the guest runs its programs in.
echo \n### 1. A client of the i386 systemd-style daemon waits for /auto/a\n
tbreak autofs_wait if $_streq($lx_current(0)->comm, "systemd-style") && $lab_in_compat_syscall()
continue
p $lx_current(0)->comm
p $lx_current(0)->pid
echo \n### what the kernel noted when the daemon mounted /auto\n
lab-value i386_compat_daemon sbi->compat_daemon
p sbi->oz_pgrp->numbers[0].nr
echo \n### the client's parent is the daemon, the leader of the mount's process group\n
lab-value i386_daemon_comm $lx_current(0)->real_parent->comm
lab-value i386_daemon_leads_pgrp $lx_current(0)->real_parent->pid == sbi->oz_pgrp->numbers[0].nr
echo \n### among all tasks\n
lx-ps

# autofs_v5_packet_size() is noinline, but GCC made a clone of it
# (autofs_v5_packet_size.isra.0) that takes compat_daemon rather than
# sbi: sbi is <optimized out> inside. Its return value is not: finish.
echo \n### 2. The size of the packet the kernel is about to write\n
tbreak autofs_v5_packet_size
continue
bt 3
finish
lab-value i386_packet_size $

# The same for the x86_64 systemd-style daemon, which runs later.
echo \n### 3. And a client of the x86_64 systemd-style daemon\n
tbreak autofs_wait if $_streq($lx_current(0)->comm, "systemd-style") && !$lab_in_compat_syscall()
continue
lab-value x86_64_compat_daemon sbi->compat_daemon
tbreak autofs_v5_packet_size
continue
finish
lab-value x86_64_packet_size $
lab-done
