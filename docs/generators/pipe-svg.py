#!/usr/bin/env python3
"""Draw what a stream pipe and a packet pipe do with the same calls.

    pipe-svg.py STREAM_LABEL STREAM_TRANSCRIPT PACKET_LABEL PACKET_TRANSCRIPT STREAM_STEPS OUT.svg

STREAM_LABEL and PACKET_LABEL name the steps the transcripts come from
("step 1"); STREAM_STEPS lists every step whose autofs pipe is a stream
("steps 1, 2, 3"), as the steps' step.conf files say.

The calls are those of the guest program packet-pipe: two writes of one
size, then a short read and a full read. Their sizes, and what read 1
returned on a packetized pipe, are the RESULT fields of packet-pipe in
PACKET_TRANSCRIPT (the guest transcript of the last step, where
pipe2(O_DIRECT) works). The stream pipe lane applies the same calls to a
byte stream; the measured evidence for it comes from STREAM_TRANSCRIPT
(the guest transcript of step 1): the RESULT lines of the i386
systemd-style daemon, which met the 4 leftover bytes, and of the x86_64
one, which measured the packet size. Both are read with
scripts/labhost/results.py. The script refuses to draw when the results do not
say what it needs.

The SVG has no XML prolog, no blank line and no external reference, so it
can be inlined into a Markdown page. Called by scripts/docs/docs.sh, with
scripts/ in PYTHONPATH; stdlib only.
"""

import os
import sys

from labhost.results import cell_text, parse_transcript  # docs.sh sets PYTHONPATH
from svg import Svg  # docs/generators/svg.py, next to this script


def die(msg):
    sys.exit("pipe-svg.py: " + msg)


def runs(path):
    """{(program, abi): Result} of a guest transcript (scripts/labhost/results.py)."""
    plans, results, problems = parse_transcript(path)
    if problems or not results:
        die("%s: %s (run make first)" % (path, "; ".join(problems) or "no RESULT lines"))
    return {(r["reader"], r["abi"]): r for r in results}


def need(r, what, path, **want):
    """r's fields must be as given: the diagram draws only what was measured."""
    if r is None:
        die("%s: no %s run in this transcript" % (path, what))
    for k, v in want.items():
        if r[k] != v:
            die("%s: %s says %s=%s, not %s: %s" % (path, what, k, r[k], v, cell_text(r)))


def packet_numbers(path):
    """packet-pipe on a packet pipe step: one write queued w1, read 1 asked
    for r1 and got got1. The program writes twice the same and reads the
    second write whole, and verdict packetized says it got all of it: so
    w2, r2 and got2 are w1."""
    r = runs(path).get(("packet-pipe", "x86_64"))
    need(r, "packet-pipe", path, verdict="packetized")
    w, r1, got1 = r.size("queued"), r.size("want"), r.size("got")
    return {"w1": w, "w2": w, "r1": r1, "got1": got1, "r2": w, "got2": w}


def stream_evidence(path):
    """What the i386 systemd-style daemon saw on the stream pipe of a step
    where it broke with a leftover; the packet size is what the x86_64
    systemd-style daemon of the same boot measured."""
    t = runs(path)
    r = t.get(("systemd-style", "i386"))
    need(r, "i386 systemd-style", path, verdict="broken", cause="leftover")
    wide = t.get(("systemd-style", "x86_64"))
    need(wide, "x86_64 systemd-style", path, verdict="ok")
    pp = t.get(("packet-pipe", "x86_64"))
    return {
        "queued": wide.size("queued"), "read": r.size("want"),
        "left": r.size("queued"), "next": r.size("got"),
        "o_direct": pp["detail"].split(";")[0] if pp and pp["verdict"] == "unsupported" else "",
    }


COLORS = {1: ("#cfe0f5", "#3d5f8f"), 2: ("#d3ecd0", "#3f7a3a")}
TAIL_STROKE = "#b42318"
DONE = ("#ededed", "#b0b0b0")
GOT = ("#fde8b0", "#a57a00")


def draw(p, s, packet_src, stream_src, stream_steps):
    W = 760
    svg = Svg(W, "pipe", text_size=13, rx=2)
    X0 = 178
    SEG_MIN = 16                      # a 4-byte slice is drawn this wide
    tail = p["w1"] - p["r1"]
    if tail <= 0:
        die("expected a first read shorter than the write; got %r" % p)
    GAP = 18                          # between the two buffers of a packet pipe
    per_byte = (W - X0 - 22 - GAP - 2 * SEG_MIN) / (p["w1"] + p["w2"] - 2 * tail)

    def width(n):
        return max(SEG_MIN, n * per_byte)

    # the four slices: front and tail of write 1 and of write 2
    slices = [(1, "front", p["r1"]), (1, "tail", tail), (2, "front", p["r1"]),
              (2, "tail", p["w2"] - p["r1"])]

    def bar(y, gap, state):
        """state per slice: queued, left (queued, past the short read), got
        (returned by this row's read), done (returned earlier), dropped
        (discarded by this row's read), gone (discarded earlier)."""
        x = X0
        pos = []
        for i, (pkt, part, n) in enumerate(slices):
            if i == 2:
                x += gap
            w = width(n)
            st = state[i]
            fill, stroke = COLORS[pkt]
            sw, dash, label, tfill = 1.2, None, "", "#1a1a1a"
            if st == "got":
                fill, stroke = GOT
                label = "returned" if part == "front" else ""
                if part == "tail" and pkt == 1 and state[0] == "done":
                    stroke, sw = TAIL_STROKE, 2.4     # the leftover, read late
            elif st == "done":
                fill, stroke = DONE
                tfill = "#888"
            elif st in ("dropped", "gone"):
                fill, stroke = "#ffffff", TAIL_STROKE if st == "dropped" else "#bbbbbb"
                dash = None if st == "dropped" else "3 3"
            else:
                label = "%d of write %d" % (n, pkt) if part == "front" else ""
                if part == "tail":
                    stroke, sw = TAIL_STROKE, 2.4
            svg.rect(x, y, w, 26, fill, stroke, sw=sw, dash=dash, rx=0)
            if label:
                svg.text(x + w / 2, y + 18, label, size=12.5, anchor="middle", mono=True,
                         fill=tfill)
            if st == "dropped":
                svg.line(x + 2, y + 2, x + w - 2, y + 24, TAIL_STROKE, 1.8)
                svg.line(x + 2, y + 24, x + w - 2, y + 2, TAIL_STROKE, 1.8)
            pos.append((x, w))
            x += w
        return pos

    def outline(x, y, w, label):
        svg.rect(x - 4, y - 4, w + 8, 34, "none", "#555", sw=1, dash="4 3", rx=4)
        svg.text(x - 2, y - 8, label, size=11.5, fill="#555", mono=True)

    svg.text(W / 2, 28, "Two %d-byte writes, then read(%d) and read(%d)"
             % (p["w1"], p["r1"], p["r2"]), size=19, anchor="middle", weight="bold")
    svg.text(W / 2, 50, "the calls of the guest program packet-pipe; "
             "a %d-byte slice is drawn wider than its share" % tail,
             size=12.5, anchor="middle", fill="#444")

    rows = ["2 × write(%d)" % p["w1"], "read(fd, buf, %d)" % p["r1"],
            "read(fd, buf, %d)" % p["r2"]]

    def lane(y, gap, states, notes, buffers, last_fill="#333"):
        """The three rows (write, read, read) of one kind of pipe; the
        first row outlines its pipe_buffers (first, last segment, label)."""
        for i, label in enumerate(rows):
            svg.text(16, y + 18, label, size=13, mono=True, weight="bold")
            pos = bar(y, gap, states[i])
            if i == 0:
                for a, b, what in buffers:
                    outline(pos[a][0], y, pos[b][0] + pos[b][1] - pos[a][0], what)
            svg.text(X0, y + 44, notes[i], size=13, fill=last_fill if i == 2 else "#333")
            y += 70 if i == 0 else 62
        return y

    # ---- stream lane
    y = 86
    svg.text(16, y, "Stream pipe (%s): writes are merged into one pipe_buffer" % stream_steps,
             size=16, weight="bold")
    y += 34
    stream_states = [
        ["queued"] * 4,
        ["got", "left", "queued", "queued"],
        ["done", "got", "got", "left"],
    ]
    left_after2 = p["w2"] - p["r1"]
    stream_notes = [
        "%d bytes queued: where write 1 ends is no longer recorded" % (p["w1"] + p["w2"]),
        "returns %d; the last %d bytes of write 1 stay at the front" % (p["r1"], tail),
        "returns %d = %d old bytes of write 1 + %d of write 2; %d are left"
        % (p["r2"], tail, p["r2"] - tail, left_after2),
    ]
    y = lane(y, 0, stream_states, stream_notes,
             [(0, 3, "one pipe_buffer, PIPE_BUF_FLAG_CAN_MERGE")], last_fill=TAIL_STROKE)
    svg.text(16, y, "These rows are worked out. Measured (%s, i386 systemd-style): the kernel "
             "queued %d, the daemon read %d," % (stream_src, s["queued"], s["read"]),
             size=13, fill="#333")
    y += 18
    svg.text(16, y, "%d stayed in the pipe, and its next read returned just those %d bytes."
             % (s["left"], s["next"]), size=13, fill="#333")
    if s["o_direct"]:
        y += 18
        svg.text(16, y, "On that kernel packet-pipe gets %s." % s["o_direct"], size=13,
                 fill="#333")

    # ---- packet lane
    y += 40
    svg.line(16, y - 22, W - 16, y - 22, "#cccccc", 1)
    svg.text(16, y, "Packet pipe, O_DIRECT (%s): one pipe_buffer per write" % packet_src,
             size=16, weight="bold")
    y += 34
    packet_states = [
        ["queued"] * 4,
        ["got", "dropped", "queued", "queued"],
        ["done", "gone", "got", "got"],
    ]
    packet_notes = [
        "two buffers of %d, each flagged PIPE_BUF_FLAG_PACKET" % p["w1"],
        "returned %d of write 1; the other %d bytes went with the buffer"
        % (p["got1"], p["w1"] - p["got1"]),
        "returned all %d of write 2; the pipe is empty" % p["got2"],
    ]
    y = lane(y, GAP, packet_states, packet_notes,
             [(0, 1, "pipe_buffer 1, PACKET"), (2, 3, "pipe_buffer 2, PACKET")])
    svg.text(16, y, "Measured (%s, packet-pipe's RESULT line): the size queued by one write, "
             "and what read 1 returned." % packet_src, size=13, fill="#333")
    y += 20

    # legend
    y += 14
    lx = 16
    for fill, stroke, sw, label in ((COLORS[1][0], COLORS[1][1], 1.2, "write 1"),
                                    (COLORS[2][0], COLORS[2][1], 1.2, "write 2"),
                                    ("#ffffff", TAIL_STROKE, 2.4, "the %d bytes past %d" % (tail, p["r1"])),
                                    (GOT[0], GOT[1], 1.2, "returned by this read"),
                                    (DONE[0], DONE[1], 1.2, "read before"),
                                    ("#ffffff", TAIL_STROKE, 1.2, "discarded")):
        svg.rect(lx, y - 12, 18, 16, fill, stroke, sw=sw, rx=0)
        if label == "discarded":
            svg.line(lx + 2, y - 10, lx + 16, y + 2, TAIL_STROKE, 1.5)
            svg.line(lx + 2, y + 2, lx + 16, y - 10, TAIL_STROKE, 1.5)
        svg.text(lx + 24, y + 1, label, size=12.5)
        lx += 34 + len(label) * 7.0
    y += 18
    title = "Stream pipe and packet pipe after two %d-byte writes and reads of %d and %d" % (
        p["w1"], p["r1"], p["r2"])
    desc = ("On a stream pipe the %d bytes a short read leaves behind start the next read; "
            "on a packet pipe they are discarded with their buffer." % tail)
    return svg.render(y, title, desc)


def main(argv):
    if len(argv) != 7:
        die("usage: pipe-svg.py STREAM_LABEL STREAM_TRANSCRIPT PACKET_LABEL PACKET_TRANSCRIPT "
            "STREAM_STEPS OUT.svg")
    stream_label, stream_t, packet_label, packet_t, stream_steps, out = argv[1:]
    p = packet_numbers(packet_t)
    s = stream_evidence(stream_t)
    if p["got1"] != min(p["r1"], p["w1"]):
        die("%s: packet-pipe's read 1 returned %d; a packet pipe returns %d"
            % (packet_t, p["got1"], min(p["r1"], p["w1"])))
    if s["queued"] - s["read"] != s["left"] or s["left"] != s["next"]:
        die("%s: the systemd-style numbers do not add up: %r" % (stream_t, s))
    svg = draw(p, s, packet_label, stream_label, stream_steps)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(svg)
    os.replace(out + ".tmp", out)
    print("pipe-svg.py: %s: writes %d+%d, reads %d (got %d) and %d (got %d); stream leftover %d"
          % (out, p["w1"], p["w2"], p["r1"], p["got1"], p["r2"], p["got2"], s["left"]))


if __name__ == "__main__":
    main(sys.argv)
