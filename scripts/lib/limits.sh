# shellcheck shell=bash
# The lab's time limits, in seconds, in one table. Each inner limit ends
# before the one around it, so that a stall is reported by the innermost
# part that can explain it, and nothing waits for ever:
#   a daemon's wait for one packet or child        LIMIT_READ_MS (ms)
#   < a daemon's whole run (then 2 s of cleanup)   LIMIT_WATCHDOG
#   < init's limit per program (SIGKILL 2 s later) LIMIT_PROGRAM
#   < a boot: LIMIT_BOOT_BASE + every program's LIMIT_PROGRAM + 2
#   < a batch gdb session: its boot + LIMIT_GDB_EXTRA
#   < a test suite                                 LIMIT_SUITE
#   < a whole lab command (make, make test, ...)   LIMIT_RUN
# and a kernel make (LIMIT_KERNEL_BUILD), apt-get (LIMIT_APT), the scan
# (LIMIT_SCAN, each of its stages LIMIT_SCAN_STAGE) and an interactive
# session (LIMIT_INTERACTIVE) fit in LIMIT_RUN too. Every child of the
# lab runs under one of these (lib/supervise.sh), cut to what is left of
# LIMIT_RUN.
# The guest gets its three from the kernel command line (limits_cmdline,
# which boot.sh passes), gdb its two as convenience variables set on
# gdb's command line (gdb/session.sh), Python the rest from the
# environment (lab_setup exports the table; labhost/limits.py reads it),
# and the docs' table from docs.sh's arguments. make test checks the
# nesting (tests/test-robust.sh), and that no guest program or script has
# a default of its own (tests/test-limits.sh). Sourced: defines only. A
# value already in the environment is kept: the scripts a lab command
# runs get its table (lab_setup exports it), and a test may shrink one.
: "${LIMIT_READ_MS:=1000}"
: "${LIMIT_WATCHDOG:=12}"
# (Debian's automount alone waits about 11 s for its maps to expire:
# 24 leaves a busy machine's guest room for the rest)
: "${LIMIT_PROGRAM:=24}"
: "${LIMIT_BOOT_BASE:=30}"
: "${LIMIT_GDB_EXTRA:=90}"
# after an interactive session: the guest's rest of the demo
: "${LIMIT_AFTER_GDB:=60}"
# QEMU's wait before it listens on the debugger's channel
: "${LIMIT_DEBUG_LISTEN:=15}"
# the kgdb safety net's wait for each of its two probes (kgdb polls the
# port in a loop: it answers in milliseconds)
: "${LIMIT_KGDB_PROBE:=3}"
# a KVM probe boots the kernel to its first line (well under 1 s on KVM)
: "${LIMIT_KVM_PROBE:=5}"
# QEMU's monitor answering one question (where a stuck guest's CPU is)
: "${LIMIT_MONITOR:=5}"
# gdb's wait for one reply of kgdb over the serial line (remotetimeout)
: "${LIMIT_GDB_REMOTE:=20}"
# a short tool: git am, merge_config.sh, gdb asked for one symbol
: "${LIMIT_SHORT:=300}"
# a child that was asked to stop (SIGTERM) and still runs gets SIGKILL
: "${LIMIT_STOP:=2}"
: "${LIMIT_KERNEL_BUILD:=2400}"
: "${LIMIT_APT:=1800}"
: "${LIMIT_SCAN:=1800}"
: "${LIMIT_SCAN_STAGE:=900}"
# one test suite (make test T=NAME); the whole suite is LIMIT_RUN's
: "${LIMIT_SUITE:=2700}"
: "${LIMIT_INTERACTIVE:=3600}"
: "${LIMIT_RUN:=5400}"

# Every name above, for the environment (lab_setup) and the docs.
limit_names() {
	printf '%s\n' LIMIT_READ_MS LIMIT_WATCHDOG LIMIT_PROGRAM LIMIT_BOOT_BASE LIMIT_GDB_EXTRA \
		LIMIT_AFTER_GDB LIMIT_DEBUG_LISTEN LIMIT_KGDB_PROBE LIMIT_KVM_PROBE LIMIT_MONITOR LIMIT_GDB_REMOTE \
		LIMIT_SHORT LIMIT_STOP LIMIT_KERNEL_BUILD LIMIT_APT LIMIT_SCAN LIMIT_SCAN_STAGE \
		LIMIT_SUITE LIMIT_INTERACTIVE LIMIT_RUN
}

# The boot limit of a guest that runs $1 programs.
boot_limit() {
	echo $((LIMIT_BOOT_BASE + $1 * (LIMIT_PROGRAM + 2)))
}
# The boot limit of the guest in an output dir (its programs file: one
# line a program), and of a batch debugger session of it.
step_boot_limit() { # out-dir
	boot_limit "$(grep -c . "$(out_file "$1" programs)")"
}
gdb_batch_limit() { # out-dir
	echo $(($(step_boot_limit "$1") + LIMIT_GDB_EXTRA))
}

# The guest's limits, as its kernel command line gives them (guest/init.sh
# reads them there; nothing in the guest has a default).
limits_cmdline() {
	echo "lab.read_ms=$LIMIT_READ_MS lab.watchdog=$LIMIT_WATCHDOG lab.prog_timeout=$LIMIT_PROGRAM"
}
