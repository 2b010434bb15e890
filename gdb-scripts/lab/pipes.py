# lab-pipe-buf: a struct pipe_buffer with its flags named, by the names
# the step's own kernel defines.

import gdb

from lab import constants


def flag_names(flags):
    known = constants.get().PIPE_BUF_FLAGS
    names = [name for name, bit in known if flags & bit]
    rest = flags & ~sum(bit for _, bit in known)
    if rest:
        names.append("0x%x, which this kernel does not define" % rest)
    return "|".join(names) if names else "none"


class PipeBuf(gdb.Command):
    """Print a struct pipe_buffer with its flags named.

Usage: lab-pipe-buf EXPR
EXPR is a struct pipe_buffer or a pointer to one. The names are the
PIPE_BUF_FLAG_* macros of this step's kernel tree: in the steps that
take packet mode out there is no PIPE_BUF_FLAG_PACKET."""

    def __init__(self):
        super().__init__("lab-pipe-buf", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        buf = gdb.parse_and_eval(arg)
        if buf.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
            buf = buf.dereference()
        flags = int(buf["flags"])
        gdb.write("pipe_buffer: offset = %d, len = %d, flags = 0x%02x (%s)\n" %
                  (int(buf["offset"]), int(buf["len"]), flags, flag_names(flags)))


PipeBuf()
