# shellcheck shell=bash
# The core of the lab's host scripts: where the lab is, messages, and
# lab_setup, which every script that works on a build dir calls first.
# Sourcing this file (and through it the rest of lib/) only defines:
# nothing is made, run, locked or trapped until lab_setup is called.
# scripts/README.md maps the scripts; lib/ holds one job per file:
#   core.sh       this: the root, messages, lab_setup
#   layout.sh     the build dir: claimed, a plain path, what it records
#   model.sh      the step model's answers (labhost/model.py, read once)
#   supervise.sh  every child process: own group, time limit, V=1
#   limits.sh     every time limit, in one table
#   lock.sh       one lab command per build dir
#   args.sh       the one way to take arguments
#   tap.sh        the tests' TAP 13
set -euo pipefail

# The lab's checkout, the one place that says where it is (Python is
# told: LAB_ROOT). pwd -P: a checkout reached as //lab would otherwise
# keep the //, nor a leading //, which bash keeps and no getcwd()
# returns: gcc's build dir must be spelled as the prefix maps spell it.
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
LAB_ROOT=${LAB_ROOT/#\/\//\/}
SCRIPTS=$LAB_ROOT/scripts
# The lab's Python: Debian's, which make installs with python3-yaml, not
# the first python3 on PATH (a pyenv shim or a venv may be another
# version with other modules, and a shim is a shell script run before
# every start: 0.5 s each on a machine where Debian's takes 0.05 s).
# Exported: a test counts starts with LAB_PYTHON=its wrapper.
LAB_PYTHON=${LAB_PYTHON:-/usr/bin/python3}
[ -x "$LAB_PYTHON" ] || LAB_PYTHON=$(command -v python3 || echo python3)
export LAB_PYTHON
# shellcheck source=limits.sh
. "$SCRIPTS/lib/limits.sh"
# shellcheck source=layout.sh
. "$SCRIPTS/lib/layout.sh"
# shellcheck source=model.sh
. "$SCRIPTS/lib/model.sh"
# shellcheck source=supervise.sh
. "$SCRIPTS/lib/supervise.sh"
# shellcheck source=lock.sh
. "$SCRIPTS/lib/lock.sh"
# shellcheck source=args.sh
. "$SCRIPTS/lib/args.sh"

# Messages. A TAP stream (lib/tap.sh) makes them comments: MSG_PREFIX.
MSG_PREFIX=
say()  { printf '%s==> %s\n' "$MSG_PREFIX" "$*"; }
info() { printf '%s    %s\n' "$MSG_PREFIX" "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# Set up a lab command: the build dir (claimed, or through its plain
# path), its paths, the traps of the supervisor, the limits and the
# lab's root for Python, and the step model.
#   --no-claim   make clean: nothing is made or marked, and steps/ is
#                not read (a broken step must not stop a clean)
#   --no-model   source/deps.sh: steps/ is not read (the model needs
#                python3, which deps.sh may have to ask for)
# shellcheck disable=SC2120 # its options are for two scripts only
lab_setup() { # [--no-claim | --no-model]
	# the traps first: a Ctrl-C that lands now is already the lab's
	supervise_init
	BUILD_DIR=${BUILD_DIR:-$LAB_ROOT/build}
	if [ "${1:-}" != --no-claim ]; then
		claim_build_dir
		BUILD_DIR=$(cd "$BUILD_DIR" && pwd -P)
		BUILD_DIR=${BUILD_DIR/#\/\//\/}
		case $BUILD_DIR in *[[:space:]:]*) use_plain_home ;; esac
	fi
	# the scripts this one runs read it from the environment (make's export)
	export BUILD_DIR
	layout_paths
	JOBS=${JOBS:-$(nproc)}
	export LAB_ROOT PYTHONPATH=$SCRIPTS${PYTHONPATH:+:$PYTHONPATH}
	local l
	for l in $(limit_names); do export "${l?}"; done
	lock_close_inherited
	[ "${1:-}" = --no-claim ] && return 0
	mkdir -p "$LOGS"
	[ "${1:-}" = --no-model ] || model_load
}
