"""Where a build keeps things: build/steps/SLUG is a step's output (its
kernel, guest, transcripts and logs); a step's kernel is built in the
kernel tree's out-of-tree dir, "out", shared by every step of the lab's
own config, or "out-SLUG" for a step with a config of its own (its flags
would otherwise rebuild the other steps' objects). The shell asks this
through the model (STEP_OUT, STEP_KBUILD); the docs' generators import it."""

import os

# the kernel tree's build dir of the lab's own config, relative to the tree
KBUILD_SHARED = "out"


def steps_dir(build):
    return os.path.join(build, "steps")


def step_out(build, slug):
    return os.path.join(steps_dir(build), slug)


def kbuild(slug, own_config):
    """A step's kernel build dir, relative to the kernel tree."""
    return "%s-%s" % (KBUILD_SHARED, slug) if own_config else KBUILD_SHARED
