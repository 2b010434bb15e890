"""Where a build keeps things: build/steps/SLUG is a step's output (its
kernel, guest, transcripts and logs). The shell asks this through the
model (STEP_OUT); the docs' generators import it."""

import os


def steps_dir(build):
    return os.path.join(build, "steps")


def step_out(build, slug):
    return os.path.join(steps_dir(build), slug)
