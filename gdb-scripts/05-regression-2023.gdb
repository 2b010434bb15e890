# Step 5: the 2023 regression. The pipe code still has packet mode, but
# the mount path no longer puts the daemon's pipe into it.
# Run by scripts/gdb/gdb.sh (make gdb STEP=5, make kgdb STEP=5), which has
# loaded vmlinux, the kernel's gdb helpers and gdb-scripts/lab, and
# connected to the guest, stopped before init. Each lab-value line is a
# record that make test checks (steps/05-regression-2023/gdb-checks);
# the lab-* moments are in gdb-scripts/lab/moments.gdb.

echo \n### 1. The kernel writes a request for the i386 daemon: is the pipe a packet pipe?\n
echo (the daemon handed its pipe over at mount time: autofs_fill_super() only checked it)\n
lab-autofs-write "systemd-style"

echo \n### 2. The i386 daemon reads 300 bytes: as in step 1, 4 bytes stay behind\n
lab-daemon-read 300

echo \n### 3. Yet packet mode itself works: packet-pipe's ordinary and O_DIRECT pipes\n
lab-pipe-control
lab-done
