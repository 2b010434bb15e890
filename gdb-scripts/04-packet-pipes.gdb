# Step 4: packetized pipes. The kernel writes 304 bytes, a 300-byte read
# takes one packet and the rest of it is thrown away.
# Run by scripts/gdb/gdb.sh (make gdb STEP=4, make kgdb STEP=4), which has
# loaded vmlinux, the kernel's gdb helpers and gdb-scripts/lab, and
# connected to the guest, stopped before init. Each lab-value line is a
# record that make test checks (steps/04-packet-pipes/gdb-checks); the
# lab-* moments are in gdb-scripts/lab/moments.gdb.

echo \n### 1. The kernel writes a request for the i386 daemon, into a packet pipe\n
echo (autofs_prepare_pipe() set O_DIRECT on the pipe when the daemon mounted)\n
lab-autofs-write "systemd-style"

echo \n### 2. The i386 daemon reads 300 bytes of it: len drops to 0, the padding is gone\n
lab-daemon-read 300

echo \n### 3. The control: packet-pipe's ordinary pipe, then its O_DIRECT pipe\n
lab-pipe-control
lab-done
