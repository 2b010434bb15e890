"""Where a build keeps things, named here and nowhere else.

build/steps/SLUG is a step's output (its kernel, guest, transcripts and
logs); a step's kernel is built in the kernel tree's out-of-tree dir,
"out", shared by every step of the lab's own config, or "out-SLUG" for a
step with a config of its own (its flags would otherwise rebuild the
other steps' objects). A boot writes its files in an output dir (a
step's own, make try's, a bisect's) under the name of its run (boot.sh
--run NAME; "demo" unless named): RUN_FILES. The shell asks all of this
through the model (STEP_OUT, STEP_KBUILD, RUN_FILE; lib/model.sh's
step_out and run_file); the docs' generators import it."""

import os

# the kernel tree's build dir of the lab's own config, relative to the tree
KBUILD_SHARED = "out"

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


def run_file(out, what, run=DEMO_RUN):
    """The file WHAT (a key of RUN_FILES) of the boot RUN in output dir OUT."""
    sfx = "" if run == DEMO_RUN else "-" + run
    return os.path.join(out, RUN_FILES[what].format(run=run, sfx=sfx))
