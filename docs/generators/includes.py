#!/usr/bin/env python3
"""Write the include files that show what the lab recorded in a build
directory, or a note naming the command that records it:

    includes.py GEN BUILD FIRST-STEP [options]
      --step SLUG=N      a step and its number (repeat, in order)
      --gdb SLUG         a step with a gdb script (repeat)
      --limit NAME=VALUE the limits of scripts/lib/limits.sh, and BOOT_PER_PROGRAM
                         (what boot_limit adds per program)

into GEN (build/docs-gen):
  gdb-SLUG.md, kgdb-SLUG.md  a step's recorded gdb sessions
  commands-FIRST.md          the QEMU and gdb lines of the first step's runs
  where-else-*.md            make abi-scan's tables
  limits.md                  the table of time limits
  bench.md                   the timings: docs/bench.txt (make bench, kept), this
                             machine's make bench, and the last make's
  try-*.md                   make try's verdicts on the workshop exercise's designs
  not-yet.txt                what shows a note, and the commands that make it
Pages name the build directory's files as build/...: GEN/root/build is a
link to BUILD. Called by scripts/docs/docs.sh, which boots and scans nothing."""

import argparse
import os

from labhost import layout  # docs.sh sets PYTHONPATH=scripts


def write(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def read(path, default=None):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except FileNotFoundError:
        return default


class Includes:
    def __init__(self, gen, build, root):
        self.gen, self.build, self.root = gen, build, root
        self.missing = []          # (file as build/..., command)

    def in_build(self, path):
        return "build/" + os.path.relpath(path, self.build)

    def step_dir(self, slug):
        return layout.step_out(self.build, slug)

    def not_yet(self, name, path, command, more=""):
        """The note shown where a recorded file is missing."""
        f = self.in_build(path)
        self.missing.append((f, command))
        write(os.path.join(self.gen, name + ".md"),
              '!!! note "Not recorded on this machine yet"\n'
              "    This part shows `%s`, which this build directory does not have (whole) yet."
              " `%s` makes it%s;\n    then run `make docs` again.\n" % (f, command, more))

    def gdb_log(self, transport, slug, n):
        target = "gdb" if transport == "gdbstub" else "kgdb"
        name = "%s-%s" % (target, slug)
        log = layout.run_file(self.step_dir(slug), "gdb_log", transport)
        done = any(line.startswith("LAB-GDB-DONE") for line in (read(log) or "").splitlines())
        if not done:
            self.not_yet(name, log, "scripts/gdb/gdb.sh %s %s --batch" % (transport, n),
                         " (so does `make %s STEP=%s` with a `quit` at its prompt,"
                         " and `make test` for every step)" % (target, n))
            return
        write(os.path.join(self.gen, name + ".md"),
              "Recorded by `make %s STEP=%s`, file `%s`"
              " (the script's commands are the lines starting with `+`):\n\n"
              '```text\n--8<-- "%s"\n```\n'
              % (target, n, self.in_build(log), self.in_build(log)))

    def commands(self, slug, n):
        """The commands the step's last runs ran, as V=1 prints them."""
        name = "commands-" + slug
        paths = {"qemu-demo": layout.run_file(self.step_dir(slug), "qemu_cmdline"),
                 "qemu-gdbstub": layout.run_file(self.step_dir(slug), "qemu_cmdline", "gdbstub"),
                 "gdb-gdbstub": layout.run_file(self.step_dir(slug), "gdb_cmdline", "gdbstub")}
        for f, path in paths.items():
            if read(path):
                continue
            if f == "qemu-demo":
                self.not_yet(name, path, "make run STEP=%s" % n)
            else:
                self.not_yet(name, path, "scripts/gdb/gdb.sh gdbstub %s --batch" % n,
                             " (so does `make gdb STEP=%s`, and `make test` for every step)" % n)
            return
        f = {c: self.in_build(p) for c, p in paths.items()}
        code = {c: '```sh\n--8<-- "%s"\n```\n' % f[c] for c in f}
        write(os.path.join(self.gen, name + ".md"),
              "The boot of the last `make run STEP=%s` (or `make`), `%s`:\n\n"
              % (n, f["qemu-demo"]) + code["qemu-demo"] + "\n"
              "The last gdbstub session (`make gdb STEP=%s`, or `make test`'s, which adds `-batch`"
              " and `-ex lab-release`): first QEMU, waiting at reset for the debugger,"
              " `%s`:\n\n" % (n, f["qemu-gdbstub"]) + code["qemu-gdbstub"] + "\n"
              "then gdb, `%s`:\n\n" % f["gdb-gdbstub"] + code["gdb-gdbstub"])

    def where_else(self):
        for t in ("counts", "failed", "table", "nothing"):
            path = os.path.join(self.build, "abi-scan", "where-else-%s.md" % t)
            if read(path):
                write(os.path.join(self.gen, "where-else-%s.md" % t),
                      '--8<-- "%s"\n' % self.in_build(path))
            else:
                self.not_yet("where-else-" + t, path, "make abi-scan")

    def limits(self, lim):
        rows = [
            ("`LIMIT_READ_MS`", "%g" % (lim["LIMIT_READ_MS"] / 1000),
             "a daemon's wait for one packet or one child (milliseconds): what tells a stall from a slow guest"),
            ("`LIMIT_WATCHDOG`", lim["LIMIT_WATCHDOG"], "a daemon's whole run, then 2 s for its cleanup"),
            ("`LIMIT_PROGRAM`", lim["LIMIT_PROGRAM"], "init's limit per program (a SIGKILL follows 2 s later)"),
            ("boot", "%d + programs × %d" % (lim["LIMIT_BOOT_BASE"], lim["BOOT_PER_PROGRAM"]),
             "a boot: `LIMIT_BOOT_BASE` plus each program's limit and kill"),
            ("batch gdb session", "boot + %d" % lim["LIMIT_GDB_EXTRA"],
             "`make test`'s debugger sessions (`LIMIT_GDB_EXTRA`)"),
            ("`LIMIT_INTERACTIVE`", lim["LIMIT_INTERACTIVE"], "`make gdb`, `make kgdb`, `make shell`"),
            ("`LIMIT_KERNEL_BUILD`", lim["LIMIT_KERNEL_BUILD"], "one kernel make"),
            ("`LIMIT_SUITE`", lim["LIMIT_SUITE"], "one suite of `make test` (`make test T=NAME`)"),
            ("`LIMIT_RUN`", lim["LIMIT_RUN"], "a whole lab command (`make`, `make test`)"),
        ]
        write(os.path.join(self.gen, "limits.md"),
              "From `scripts/lib/limits.sh`, the one table of the lab's time limits;"
              " each ends before the one after it.\n\n"
              "| limit | seconds | what it bounds |\n|---|---|---|\n"
              + "".join("| %s | %s | %s |\n" % r for r in rows))

    def bench(self, steps):
        """The timings: the report make bench wrote on the machine the lab
        was developed on (docs/bench.txt, kept in the repository with its
        commit, date and machine), this machine's own make bench if it ran
        one, and what the last make measured here."""
        text = ""
        if read(os.path.join(self.root, "docs", "bench.txt")):
            text += ("Measured by `make bench` on an idle machine and kept in the repository"
                     " (`docs/bench.txt`): the commit, the date and the machine are in its first"
                     " lines, and every figure is beside its ratio to that machine's cold build of"
                     " step 1's kernel, which is what to compare with your own machine.\n\n"
                     '```text\n--8<-- "docs/bench.txt"\n```\n\n')
        else:
            text += "No `make bench` report is kept in the repository (`docs/bench.txt`) yet.\n\n"
        if read(os.path.join(self.build, "bench.txt")):
            text += ("This machine's own `make bench` (`build/bench.txt`):\n\n"
                     '```text\n--8<-- "build/bench.txt"\n```\n\n')
        text += ("What the last `make` measured on this machine: each step's kernel build"
                 " (`%s`; the first build of a fresh machine is"
                 " cold, later ones reuse ccache and the shared build directory) and its boot to"
                 " verdict (`%s`), under the accelerator the lab chose"
                 " (`%s`: tcg is software emulation), whatever else the"
                 " machine was doing then.\n\n"
                 % (self.in_build(layout.out_file(self.step_dir("SLUG"), "build_seconds")),
                    self.in_build(layout.run_file(self.step_dir("SLUG"), "boot_seconds")),
                    self.in_build(layout.run_file(self.step_dir("SLUG"), "boot_accel")))
                 + "| step | kernel build, s | boot to verdict, s | accelerator |\n|---|---|---|---|\n")
        for slug in steps:
            text += "| %s | %s | %s | %s |\n" % (
                slug, read(layout.out_file(self.step_dir(slug), "build_seconds"), "not measured"),
                read(layout.run_file(self.step_dir(slug), "boot_seconds"), "not measured"),
                read(layout.run_file(self.step_dir(slug), "boot_accel"), "tcg"))
        write(os.path.join(self.gen, "bench.md"), text)

    def try_exercise(self):
        """The exercise's solution on the workshop page: what make try said
        of each design, as make test's try suite recorded it."""
        for name in ("design-a", "good-fix", "wrong-fix", "bpf-wrong-fix", "bpf-good-fix"):
            path = os.path.join(self.build, "try-exercise", name + ".txt")
            if read(path) and "VERDICT: " in read(path):
                write(os.path.join(self.gen, "try-%s.md" % name),
                      '```text\n--8<-- "%s"\n```\n' % self.in_build(path))
            else:
                self.not_yet("try-" + name, path, "make test T=try")

    def summary(self):
        """One line per command that would make what shows a note."""
        lines, seen = [], set()
        for f, command in self.missing:
            if command not in seen:
                seen.add(command)
                lines.append("    %s   (%s)\n" % (command, f))
        text = ""
        if lines:
            text = ("==> some parts show a note instead: this build directory does not have"
                    " them yet. The commands that make them:\n" + "".join(lines)
                    + "    make test records all of them at once; then make docs again\n")
        write(os.path.join(self.gen, "not-yet.txt"), text)


def pair(arg):
    key, sep, value = arg.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError("not NAME=VALUE: %r" % arg)
    return key, value


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("gen")
    p.add_argument("build")
    p.add_argument("first")
    p.add_argument("--step", type=pair, action="append", default=[])
    p.add_argument("--gdb", action="append", default=[])
    p.add_argument("--limit", type=pair, action="append", default=[])
    a = p.parse_args()
    numbers = dict(a.step)
    lim = {k: int(v) for k, v in a.limit}
    inc = Includes(a.gen, a.build, os.environ["LAB_ROOT"])
    for slug in a.gdb:
        inc.gdb_log("gdbstub", slug, numbers[slug])
        inc.gdb_log("kgdb", slug, numbers[slug])
    inc.commands(a.first, numbers[a.first])
    inc.where_else()
    inc.limits(lim)
    inc.bench(numbers)
    inc.try_exercise()
    inc.summary()


if __name__ == "__main__":
    main()
