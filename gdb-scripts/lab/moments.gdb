# The moments several step scripts stop at, as gdb commands, so that a
# step script says which moments its story needs and nothing twice.
# Each prints what a learner looks at and records the values make test
# checks (lab-value); values a breakpoint's own condition forces are
# printed, not recorded. Sourced by gdb-scripts/lab-gdb.py.
#
# $lx_current(0): the task on CPU 0, the lab kernel's only CPU (under
# kgdb, on a kernel without SMP, the helper cannot find the CPU itself).

define lab-autofs-write
  # __kernel_write() is the first non-inlined call on autofs's way to
  # the pipe (autofs_write() is inlined); unpacking the initramfs calls
  # it too, hence the caller check. The writer is the client that
  # triggered the request, a fork of the daemon: an i386 client named
  # $arg0 means a request for the i386 daemon $arg0. The comm test
  # comes first: gdb types the right side of a && it skips without
  # calling functions, and ->comm of that dummy int is an error.
  tbreak __kernel_write if $_streq($lx_current(0)->comm, $arg0) && $lab_in_compat_syscall() && $_any_caller_matches("^autofs_", 3)
  continue
  bt 4
  p $lx_current(0)->comm
  lab-value write_count count
  set $pkt = (struct autofs_v5_packet *) buf
  p *$pkt
  lab-value packet_type $pkt->hdr.type
  lab-value packet_name $pkt->name
  lab-value packet_pid $pkt->pid
  echo the pipe's file flags; O_DIRECT makes it a packet pipe:\n
  p/o file->f_flags
  lab-value pipe_o_direct (file->f_flags & $lab_constant("O_DIRECT")) != 0
  set $pipe = (struct pipe_inode_info *) file->private_data
end
document lab-autofs-write
Stop where autofs writes a request for the i386 daemon named ARG0 (a
quoted string), and record the packet: write_count, packet_type,
packet_name, packet_pid, pipe_o_direct. Sets $pkt and $pipe.
end

define lab-daemon-read
  # Only now, with a packet in flight, is pipe_read() worth stopping
  # in: busybox's pipes never pass this condition, but would cost a
  # stop each before it.
  tbreak pipe_read if iocb->ki_filp->private_data == $pipe && to->count == $arg0
  continue
  lab-value reader_comm $lx_current(0)->comm
  lab-value reader_compat $lab_in_compat_syscall()
  p to->count
  set $buf = &$pipe->bufs[$pipe->tail & ($pipe->ring_size - 1)]
  p *$buf
  lab-pipe-buf $buf
  lab-value buf_len_before $buf->len
  lab-value buf_offset_before $buf->offset
  lab-value buf_flags_before $buf->flags
  finish
  lab-value read_returned $
  echo after the read:\n
  p *$buf
  lab-pipe-buf $buf
  lab-value buf_len_after $buf->len
  lab-value buf_offset_after $buf->offset
end
document lab-daemon-read
Stop where the daemon reads ARG0 bytes from $pipe (set by
lab-autofs-write), and record the pipe_buffer before and after the read:
reader_comm, reader_compat, buf_len_*, buf_offset_*, buf_flags_before,
read_returned.
end

define lab-pipe-control
  # packet-pipe makes an ordinary pipe first, then an O_DIRECT one,
  # writes a packet into each and asks for the pipe's size, which only
  # it does: pipe_fcntl() is a quiet place to stop (a breakpoint on
  # pipe_read would stop for every shell pipe). Each stop names its
  # pipe by O_DIRECT: once, under load, resuming from the first stop
  # reported the same call again, the ordinary pipe twice.
  tbreak pipe_fcntl if $_streq($lx_current(0)->comm, "packet-pipe") && !(file->f_flags & $lab_constant("O_DIRECT"))
  continue
  set $cpipe = (struct pipe_inode_info *) file->private_data
  lab-pipe-buf &$cpipe->bufs[$cpipe->tail & ($cpipe->ring_size - 1)]
  lab-value plain_buf_flags $cpipe->bufs[$cpipe->tail & ($cpipe->ring_size - 1)].flags
  tbreak pipe_fcntl if $_streq($lx_current(0)->comm, "packet-pipe") && (file->f_flags & $lab_constant("O_DIRECT"))
  continue
  set $cpipe = (struct pipe_inode_info *) file->private_data
  lab-pipe-buf &$cpipe->bufs[$cpipe->tail & ($cpipe->ring_size - 1)]
  lab-value direct_buf_flags $cpipe->bufs[$cpipe->tail & ($cpipe->ring_size - 1)].flags
end
document lab-pipe-control
Stop twice where packet-pipe asks for a pipe's size, after its first
write: on its ordinary pipe, then on its O_DIRECT one, and record each
buffer's flags (plain_buf_flags, direct_buf_flags).
end
