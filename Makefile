# The autofs v5 packet ABI lab. Every target is a thing a learner does;
# each is one command of scripts/lab.sh (scripts/README.md says which
# file does what). STEP is a step's number or name: STEP=1 or
# STEP=01-padding.
#
#   make                 build every step's kernel and guest, boot each in
#                        QEMU, print the outcome matrix
#   make run STEP=N      boot one step, print its guest transcript
#   make shell STEP=N    boot one step with an interactive busybox shell
#   make check           the checks that need no kernel build and no boot
#                        (the edit loop: a minute)
#   make test            the whole test suite (T=NAME: one suite)
#   make gdb STEP=N      boot one step under QEMU's gdbstub; gdb stops at the step's moment
#   make kgdb STEP=N     the same through kgdb in the guest, over a second serial port
#   make try PATCH=F     your own fix of 2012: a kernel patch judged by the matrix
#                        (or REF=BRANCH; ON=STEP to start from, GOAL=STEP to reach)
#   make docs            the documentation site, in build/site (after make)
#   make serve-docs      serve it on http://127.0.0.1:8000
#   make abi-scan        where else? every uapi struct with autofs's problem
#   make bundle          a workshop in a file: build/abi-lab-COMMIT.tar.xz, and
#                        the make import line to hand out (SIGN=KEY: signed too)
#   make import BUNDLE=F SHA256=HEX
#                        use the bundle announced instead of building (no
#                        compiler needed); or SIG=F.sig SIGNER=KEY.pub
#   make verify-bundle BUNDLE=F
#                        build from source here, compare with the bundle
#   make bench           build and boot timings on this machine
#   make soak N=20       boot every step N times: any verdict that changes?
#   make soak N=300 GDB=kgdb STEP=4
#                        N batch kgdb sessions: does any leave the guest stuck?
#   make clean           remove build/ (the kernel tree and all output)
#
# V=1 (any target) prints every QEMU, gdb, kernel make and git am
# command the lab runs, as a line to paste into a shell.

LAB := scripts/lab.sh
export BUILD_DIR LAB_KVM V
# V=1 is ours. Left on make's command line it would reach the kernel's
# make through MAKEFLAGS, where it means "print every compiler command":
# take it off (kbuild ignores a V from the environment).
MAKEOVERRIDES := $(filter-out V=%,$(MAKEOVERRIDES))
# what a second lab command waiting for this one is told it waits for
export LAB_COMMAND = make $(MAKECMDGOALS)$(if $(STEP), STEP=$(STEP))
# an option of lab.sh, given only when the variable is set
opt = $(if $(2),--$(1) "$(2)")

.PHONY: all run shell check test gdb kgdb try abi-scan bundle import verify-bundle docs serve-docs bench soak clean
all:
	@$(LAB) all

run:
	@$(LAB) run "$(STEP)"

shell:
	@$(LAB) shell "$(STEP)"

check:
	@$(LAB) test --tier check

test:
	@$(LAB) test $(call opt,suite,$(T))

# LAB_GDB_TCP=1: the debugger's channel on 127.0.0.1, not a unix socket
gdb kgdb:
	@$(LAB) $@ "$(STEP)" $(if $(filter 1,$(LAB_GDB_TCP)),--tcp)

try:
	@$(LAB) try $(call opt,patch,$(PATCH)) $(call opt,ref,$(REF)) $(call opt,on,$(ON)) $(call opt,goal,$(GOAL))

abi-scan:
	@$(LAB) abi-scan

bundle:
	@$(LAB) bundle $(call opt,sign,$(SIGN))

# which bundle: its SHA256 as make bundle printed it, or a signature
import:
	@$(LAB) import "$(BUNDLE)" $(call opt,sha256,$(SHA256)) $(call opt,sig,$(SIG)) \
		$(call opt,signer,$(SIGNER)) $(if $(filter 1,$(UNVERIFIED)),--unverified)

verify-bundle:
	@$(LAB) verify-bundle "$(BUNDLE)"

docs:
	@$(LAB) docs

serve-docs:
	@$(LAB) docs --serve

bench:
	@$(LAB) bench

soak:
	@$(LAB) soak "$(N)" $(call opt,gdb,$(GDB)) $(call opt,step,$(STEP))

clean:
	@$(LAB) clean
