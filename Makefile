# The autofs v5 packet ABI lab. Every target is a thing a learner does;
# the work is in steps/lib/*.sh. See README.md.
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
#   make bench           build and boot timings on this machine
#   make clean           remove build/ (the kernel tree and all output)

LIB := steps/lib
export BUILD_DIR LAB_KVM

.PHONY: all run shell gdb kgdb test docs serve-docs bench clean
all:
	@$(LIB)/lab.sh all

run:
	@$(LIB)/lab.sh run "$(STEP)"

shell:
	@$(LIB)/lab.sh shell "$(STEP)"

gdb:
	@$(LIB)/gdb.sh gdbstub "$(STEP)"

kgdb:
	@$(LIB)/gdb.sh kgdb "$(STEP)"

test:
	@$(LIB)/test.sh

docs:
	@$(LIB)/docs.sh build

serve-docs:
	@$(LIB)/docs.sh serve

bench:
	@$(LIB)/bench.sh

clean:
	rm -rf $(or $(BUILD_DIR),build)
