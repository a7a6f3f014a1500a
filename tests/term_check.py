#!/usr/bin/env python3
"""Helpers of tests/hostile_term.sh: what tlparse prints holds no terminal control of a log's.

    term_check.py clean FILE [--color] [--screen]
        Exit 1, saying where, when FILE holds a byte a terminal acts on: a C0 control but the
        newline (ESC, CR, BEL, BS, ...), DEL, a C1 control (U+0080..U+009F), or a byte of no
        UTF-8 character (a raw 0x9b is CSI to a terminal that takes 8-bit controls). With
        --color, our own colours (SGR: ESC [ digits ; m) are taken out first; with --screen,
        also the --watch panel's own sequences (ESC [K, ESC [J, ESC [NA and the CR around
        them). Either way, a marker of the hostile log (ZQ + 4 characters) followed by an ESC that starts no
        colour reset is a leak: every hostile string of the log follows its marker.
    term_check.py pty OUT [--int-on TEXT] CMD...
        Run CMD with a terminal (a pty in raw mode, so that no CR is added; 40 rows of 100
        columns; TERM=xterm, no NO_COLOR) as its stdout and stderr; what it wrote goes into
        OUT. With --int-on, Ctrl-C (SIGINT) once it wrote TEXT (or after 60 s). Exits with
        CMD's status (128+N for a signal N).
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
import tty

SGR = re.compile(rb"\x1b\[[0-9;]*m")
# The --watch panel's redraw: back to its first line (CR, cursor up N), erase to the end of the
# screen; a panel line ends with erase-to-end-of-line and a CR (the cursor at its start).
SCREEN = re.compile(rb"\r(?=\x1b\[[0-9]*A|\x1b\[J)|\x1b\[(?:H|2J|K|J|[0-9]*A)|(?<=\x1b\[K)\r")
# A marker (make_hostile_log.py: ZQ + a 3-character tag + a variant letter, or ZQ + a name of
# the suite's) right before an ESC: the log's string, raw. ESC [0m is ours: --watch cuts a line
# to the screen's width and resets the colour after it.
MARKER_ESC = re.compile(rb"ZQ[a-z0-9]{4}\x1b(?!\[0m)")
BAD = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\udc80-\udcff]")


def clean(path, color, screen):
    data = open(path, "rb").read()
    m = MARKER_ESC.search(data)
    if m:
        print("%s: raw log text after a marker at byte %d: %r"
              % (path, m.start(), data[max(0, m.start() - 40):m.end() + 40]))
        return 1
    if color or screen:
        data = SGR.sub(b"", data)
    if screen:
        data = SCREEN.sub(b"", data)
    text = data.decode("utf-8", "surrogateescape")
    bad = [m.start() for m in BAD.finditer(text)]
    if not bad:
        return 0
    i = bad[0]
    line = text.count("\n", 0, i) + 1
    print("%s: %d bytes a terminal acts on; the first on line %d: %r"
          % (path, len(bad), line, text[max(0, i - 60):i + 30]))
    return 1


def run_pty(out, cmd):
    stop = None
    if cmd[0] == "--int-on":
        stop, cmd = cmd[1].encode(), cmd[2:]
    master, slave = pty.openpty()
    tty.setraw(slave)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    env = dict(os.environ, TERM="xterm")
    env.pop("NO_COLOR", None)
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    start, data = time.monotonic(), b""
    while True:
        if stop is not None and (stop in data or time.monotonic() - start > 60):
            p.send_signal(signal.SIGINT)
            stop = None
        ready, _, _ = select.select([master], [], [], 0.1)
        if not ready:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    with open(out, "wb") as f:
        f.write(data)
    rc = p.wait()
    return 128 - rc if rc < 0 else rc


def main(argv):
    if len(argv) >= 3 and argv[1] == "clean":
        return clean(argv[2], "--color" in argv[3:], "--screen" in argv[3:])
    if len(argv) >= 4 and argv[1] == "pty":
        return run_pty(argv[2], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
