# Step 3: 300 bytes for compat daemons, unless current->comm is
# "automount". Run by scripts/gdb/gdb.sh (make gdb STEP=3, make kgdb
# STEP=3), which has loaded vmlinux, the kernel's gdb helpers and
# gdb-scripts/lab, and connected to the guest, stopped before init.
# Each lab-value line is a record that make test checks
# (steps/03-comm-hack/gdb-checks); the comm the breakpoints ask for is
# printed, not checked.
#
# $lx_current(0): the task on CPU 0, the lab kernel's only CPU (under
# kgdb, on a kernel without SMP, the helper cannot find the CPU itself).

# autofs_compat_daemon() is static inline: gdb puts a breakpoint on each
# place it was inlined (autofs_fill_super, autofs_dev_ioctl_setpipefd),
# but an inlined function has no return value to finish with. So stop
# there for comm, then finish the caller, autofs_fill_super(), and read
# what it stored.
echo \n### 1. The i386 automount mounts /auto: compat daemon or not?\n
tbreak autofs_compat_daemon if $_streq($lx_current(0)->comm, "automount")
continue
bt 2
p $lx_current(0)->comm
lab-value automount_compat_syscall $lab_in_compat_syscall()
up
set $sbi = (struct autofs_sb_info *) s->s_fs_info
finish
echo \n### the decision, as stored for this mount\n
lab-value automount_compat_daemon $sbi->compat_daemon

echo \n### so automount's requests are\n
tbreak autofs_v5_packet_size
continue
finish
lab-value automount_packet_size $

echo \n### 2. The same program as automount.new mounts /auto\n
tbreak autofs_compat_daemon if $_streq($lx_current(0)->comm, "automount.new")
continue
p $lx_current(0)->comm
lab-value renamed_compat_syscall $lab_in_compat_syscall()
up
set $sbi = (struct autofs_sb_info *) s->s_fs_info
finish
echo \n### the decision, as stored for this mount\n
lab-value renamed_compat_daemon $sbi->compat_daemon

echo \n### so automount.new's requests are\n
tbreak autofs_v5_packet_size
continue
finish
lab-value renamed_packet_size $
lab-done
