# The autofs ABI lab's gdb helpers: what the kernel's own scripts/gdb
# (lx-dmesg, lx-ps, $lx_current(), ...) does not cover. See lab-gdb.py.
