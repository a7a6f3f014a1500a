#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Take out of report folders what says how, from what and when they were made, so that two
runs that differ in that only compare equal byte for byte:
  - the footer of an index.html, or of the tlparse_index.html of a vLLM log (<footer class='runinfo'> ... </footer>: the revision, the
    command line, the input's name, size and modification time);
  - the input's name in an index's title ("tlparse: demo.log" becomes "tlparse: *");
  - the "generated_by" member of a summary.json (its lines; the rest is left as it is).
Everything else stays, so the comparison keeps its strength.

    python3 tests/strip_runinfo.py DIR_OR_FILE...      (rewrites the files in place)
"""
import os
import re
import sys

FOOTER = re.compile(r"<footer class='runinfo'>\n.*?</footer>\n", re.S)
TITLE = re.compile(r"<title>tlparse: [^<]*</title>")
MEMBER = re.compile(r'^( *)"generated_by": \{\n.*?^\1\},?\n', re.S | re.M)


def strip_text(name, text):
    """TEXT of a file named NAME (a base name) with its run information taken out."""
    if name in ("index.html", "tlparse_index.html"):
        return TITLE.sub("<title>tlparse: *</title>", FOOTER.sub("", text), count=1)
    if name == "summary.json":
        return MEMBER.sub("", text, count=1)
    return text


def strip(path):
    name = os.path.basename(path)
    if name not in ("index.html", "tlparse_index.html", "summary.json"):
        return
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    new = strip_text(name, text)
    if new != text:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(new)


def main(args):
    for a in args:
        if os.path.isdir(a):
            for d, _, files in os.walk(a):
                for f in files:
                    strip(os.path.join(d, f))
        else:
            strip(a)


if __name__ == "__main__":
    main(sys.argv[1:])
