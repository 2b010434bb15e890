# The autofs v5 packet ABI lab. Every target is a thing a learner does;
# the work is in scripts/. See README.md. STEP is a step's number or
# name: STEP=1 or STEP=01-padding.
#
#   make                 build every step's kernel and guest, boot each in
#                        QEMU, print the outcome matrix
#   make run STEP=N      boot one step, print its guest transcript
#   make shell STEP=N    boot one step with an interactive busybox shell
#   make test            the whole test suite
#   make gdb STEP=N      boot one step under QEMU's gdbstub; gdb stops at the step's moment
#   make kgdb STEP=N     the same through kgdb in the guest, over a second serial port
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

LIB := scripts
export BUILD_DIR LAB_KVM V
# V=1 is ours. Left on make's command line it would reach the kernel's
# make through MAKEFLAGS, where it means "print every compiler command":
# take it off (kbuild ignores a V from the environment).
MAKEOVERRIDES := $(filter-out V=%,$(MAKEOVERRIDES))
# what a second lab command waiting for this one is told it waits for
export LAB_COMMAND = make $(MAKECMDGOALS)$(if $(STEP), STEP=$(STEP))

.PHONY: all run shell gdb kgdb test abi-scan bundle import verify-bundle docs serve-docs bench soak clean
all:
	@$(LIB)/lab.sh all

run:
	@$(LIB)/lab.sh run "$(STEP)"

shell:
	@$(LIB)/lab.sh shell "$(STEP)"

# LAB_GDB_TCP=1: the debugger's channel on 127.0.0.1, not a unix socket
gdb kgdb: GDB_ARGS := $(if $(filter 1,$(LAB_GDB_TCP)),--tcp)
gdb:
	@$(LIB)/gdb.sh gdbstub "$(STEP)" $(GDB_ARGS)

kgdb:
	@$(LIB)/gdb.sh kgdb "$(STEP)" $(GDB_ARGS)

test:
	@$(LIB)/test.sh

abi-scan:
	@$(LIB)/lab.sh abi-scan

bundle:
	@$(LIB)/bundle.sh make $(if $(SIGN),--sign "$(SIGN)")

# which bundle: its SHA256 as make bundle printed it, or a signature
import:
	@$(LIB)/bundle.sh import "$(BUNDLE)" $(if $(SHA256),--sha256 "$(SHA256)") \
		$(if $(SIG),--sig "$(SIG)") $(if $(SIGNER),--signer "$(SIGNER)") \
		$(if $(filter 1,$(UNVERIFIED)),--unverified)

verify-bundle:
	@$(LIB)/bundle.sh verify "$(BUNDLE)"

docs:
	@$(LIB)/docs.sh build

serve-docs:
	@$(LIB)/docs.sh serve

bench:
	@$(LIB)/bench.sh

soak:
	@$(LIB)/soak.sh "$(N)" $(if $(GDB),--gdb "$(GDB)") $(if $(STEP),--step "$(STEP)")

clean:
	@$(LIB)/clean.sh
