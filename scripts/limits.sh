# shellcheck shell=bash
# The lab's time limits, in seconds, in one table. Each inner limit ends
# before the one around it, so that a stall is reported by the innermost
# part that can explain it, and nothing waits for ever:
#   a daemon's wait for one packet or child        LIMIT_READ_MS (ms)
#   < a daemon's whole run (then 2 s of cleanup)   LIMIT_WATCHDOG
#   < init's limit per program (SIGKILL 2 s later) LIMIT_PROGRAM
#   < a boot: LIMIT_BOOT_BASE + every program's LIMIT_PROGRAM + 2
#   < a batch gdb session: its boot + LIMIT_GDB_EXTRA
#   < a whole lab command (make, make test, ...)   LIMIT_RUN
# and a kernel make (LIMIT_KERNEL_BUILD), apt-get (LIMIT_APT) and an
# interactive session (LIMIT_INTERACTIVE) fit in LIMIT_RUN too.
# Only the shell that sources this file reads it: the guest gets its
# three from the kernel command line (limits_cmdline, which boot.sh
# passes), gdb its two as convenience variables set on gdb's command
# line (gdb.sh), and the docs' table by docs/generators/includes.py, from
# the values docs.sh passes it. make test
# checks the nesting (test-robust.sh), and that no guest program or
# script has a default of its own (test-limits.sh). Sourced.
# shellcheck disable=SC2034 # used by the scripts that source this file
LIMIT_READ_MS=1000
LIMIT_WATCHDOG=12
# (Debian's automount alone waits about 11 s for its maps to expire:
# 24 leaves a busy machine's guest room for the rest)
LIMIT_PROGRAM=24
LIMIT_BOOT_BASE=30
# a KVM probe boots the kernel to its first line (well under 1 s on KVM)
LIMIT_KVM_PROBE=5
LIMIT_GDB_EXTRA=90
# after an interactive session: the guest's rest of the demo
LIMIT_AFTER_GDB=60
# QEMU's wait before it listens on the debugger's channel
LIMIT_DEBUG_LISTEN=15
# the kgdb safety net's wait for each of its two probes (kgdb polls the
# port in a loop: it answers in milliseconds)
LIMIT_KGDB_PROBE=3
LIMIT_KERNEL_BUILD=2400
LIMIT_APT=1800
LIMIT_INTERACTIVE=3600
LIMIT_RUN=5400

# The boot limit of a guest that runs $1 programs.
boot_limit() {
	echo $((LIMIT_BOOT_BASE + $1 * (LIMIT_PROGRAM + 2)))
}

# The guest's limits, as its kernel command line gives them (guest/init.sh
# reads them there; nothing in the guest has a default).
limits_cmdline() {
	echo "lab.read_ms=$LIMIT_READ_MS lab.watchdog=$LIMIT_WATCHDOG lab.prog_timeout=$LIMIT_PROGRAM"
}
