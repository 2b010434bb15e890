# What scripts/gdb/gdb.sh gives a session on gdb's command line
# (gdb/session.sh, gdb_base_args): the step, its files (the step model's
# answers, scripts/labhost/layout.py), the transport and the time
# limits of scripts/lib/limits.sh, as convenience variables. Nothing here
# derives or defaults them.

import gdb


def _given(name):
    v = gdb.convenience_variable(name)
    if v is None:
        raise gdb.GdbError("lab: $%s is not set: start gdb with scripts/gdb/gdb.sh "
                           "(make gdb, make kgdb), which sets it" % name)
    return v


def step_slug():
    return _given("lab_step").string()


def step_file(what):
    """A file of the step's output dir, as labhost/layout.py names it:
    "vmlinux", "guest" (the guest programs, by ABI), "constants"."""
    return _given("lab_" + what).string()


def transport():
    """How gdb reaches the guest: "kgdb" or "gdbstub" (None when gdb was
    started without it)."""
    v = gdb.convenience_variable("lab_transport")
    return None if v is None else v.string()


def limit(name):
    """A time limit of scripts/lib/limits.sh, in seconds: $lab_limit_NAME."""
    return int(_given("lab_limit_" + name))
