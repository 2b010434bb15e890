"""Where a build keeps things, named here and nowhere else.

build/steps/SLUG is a step's output (its kernel, guest, transcripts and
logs); a step's kernel is built in the kernel tree's out-of-tree dir,
"out", shared by every step of the lab's own config, or "out-SLUG" for a
step with a config of its own (its flags would otherwise rebuild the
other steps' objects). In an output dir (a step's own, make try's, a
bisect's, a bundle's), a build leaves OUT_FILES and a boot writes
RUN_FILES, under the name of its run (boot.sh --run NAME; "demo" unless
named). The shell asks all of this through the model (STEP_OUT,
STEP_KBUILD, OUT_FILE, RUN_FILE; lib/model.sh's step_out, out_file and
run_file); the docs' generators import it."""

import os

# the kernel tree's build dir of the lab's own config, relative to the tree
KBUILD_SHARED = "out"

# the files a build leaves in an output dir, by what they are: the
# kernel's (build_key: what it was built from, so that make rebuilds only
# what changed; build_record: what a second build must match to give the
# same bytes), the guest's (guest/ABI/PROGRAM; programs: what it runs)
# and the initramfs, joined from its parts
OUT_FILES = {
    "bzimage": "bzImage",
    "vmlinux": "vmlinux",
    "system_map": "System.map",
    "config": "config",
    "build_key": "kernel.key",
    "build_record": "build-record",
    "build_seconds": "kernel-build-seconds",
    "uapi": "uapi",
    "gdb_helpers": "gdb-helpers",
    "gdb_constants": "lab_constants.py",
    "guest": "guest",
    "programs": "programs",
    "initramfs_files": "initramfs-files",
    "initramfs_list": "initramfs.list",
    "initramfs_lab": "initramfs-lab.cpio",
    "initramfs_parts": "initramfs.parts",
    "initramfs": "initramfs.cpio",
}

# the files of one boot in an output dir, by what they are: {run} is the
# run's name, {sfx} nothing for the demo run and "-RUN" for any other
# (the demo's transcript is transcript.txt, a gdb session's
# transcript-gdbstub.txt)
RUN_FILES = {
    "transcript": "transcript{sfx}.txt",
    "inputs": "transcript{sfx}.inputs",
    "boot_seconds": "boot-seconds{sfx}",
    "boot_accel": "boot-accel{sfx}",
    "serial": "serial-{run}.log",
    "qemu_log": "qemu-{run}.log",
    "qemu_cmdline": "qemu-{run}.cmdline",
    "hang": "hang-{run}.txt",
    "gdb_log": "gdb-{run}.log",
    "gdb_cmdline": "gdb-{run}.cmdline",
    "kgdb_end": "kgdb-end-{run}.txt",
    "boot_log": "boot-{run}.log",
    # (the pipeline's stages of a try, a bisect: pipeline.sh point)
    "kernel_log": "kernel-{run}.log",
    "guest_log": "guest-{run}.log",
}
DEMO_RUN = "demo"


def steps_dir(build):
    return os.path.join(build, "steps")


def step_out(build, slug):
    return os.path.join(steps_dir(build), slug)


def kbuild(slug, own_config):
    """A step's kernel build dir, relative to the kernel tree."""
    return "%s-%s" % (KBUILD_SHARED, slug) if own_config else KBUILD_SHARED


def out_file(out, what):
    """The file WHAT (a key of OUT_FILES) a build leaves in output dir OUT."""
    return os.path.join(out, OUT_FILES[what])


def run_file(out, what, run=DEMO_RUN):
    """The file WHAT (a key of RUN_FILES) of the boot RUN in output dir OUT."""
    sfx = "" if run == DEMO_RUN else "-" + run
    return os.path.join(out, RUN_FILES[what].format(run=run, sfx=sfx))
