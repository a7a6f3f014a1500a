#!/usr/bin/env python3
"""A deliberately broken tlparse, to check that test_injection.py catches leaks.

    E2E_REAL_BIN=build/tlparse bash tests/e2e.sh tests/e2e/mutant_tlparse.py

runs the real binary, then un-escapes one hostile string on several pages (a script in
the failures page, a javascript: and an attribute-breakout link in the index, an <img
onerror> in a dump_file page, an <svg onload> in a bwd metrics page, an <iframe srcdoc>
in the readable page), drops a marker from a metrics page, double-escapes a guard and
adds an .svg file. The suite must then FAIL and name every one of them. Not run by ctest.
"""
import glob
import os
import subprocess
import sys

real = os.environ.get("E2E_REAL_BIN") or os.path.join(os.path.dirname(__file__), "..", "..", "build", "tlparse")
rc = subprocess.call([real] + sys.argv[1:])
out = sys.argv[sys.argv.index("-o") + 1]


def sub(pattern, old, new):
    for f in sorted(glob.glob(os.path.join(glob.escape(out), pattern))):
        with open(f, encoding="utf-8") as fh:
            s = fh.read()
        if old in s:
            with open(f, "w", encoding="utf-8") as fh:
                fh.write(s.replace(old, new, 1))
            return
    sys.stderr.write("mutant: nothing to change for %s %r\n" % (pattern, old))


sub("failures_and_restarts.html", "ZQm06a&lt;script&gt;window.__pwned=1&lt;/script&gt;",
    "ZQm06a<script>window.__pwned=1</script>")
sub("index.html", "#blocked:javascript:window.__pwned=4//ZQk02a", "javascript:window.__pwned=4//ZQk02a")
sub("index.html", "&quot; onmouseover=&quot;window.__pwned=8&quot; autofocus onfocus=&quot;window.__pwned=8&quot; x=&quot;ZQk02e",
    '" onmouseover="window.__pwned=8" autofocus onfocus="window.__pwned=8" x="ZQk02e')
sub("-_0_0_0/compilation_metrics_*.html", "ZQm04b", "")
sub("-_0_0_0/dynamo_guards_*.html", "ZQg01a&lt;", "ZQg01a&amp;lt;")
sub("-_0_0_0/*_readable.html", "ZQr01g&lt;iframe srcdoc=\"&lt;script&gt;parent.__pwned=7&lt;/script&gt;\"&gt;",
    "ZQr01g<iframe srcdoc=\"<script>parent.__pwned=7</script>\">")
sub("-_0_0_0/bwd_compilation_metrics_*.html", "ZQb01c&#39;&gt;&lt;svg onload=window.__pwned=3&gt;",
    "ZQb01c'><svg onload=window.__pwned=3>")
sub("dump_file/hostile_source.py.html", "ZQf02b\"&gt;&lt;img src=x onerror=\"window.__pwned=2\"&gt;",
    "ZQf02b\"><img src=x onerror=\"window.__pwned=2\">")
with open(os.path.join(out, "x.svg"), "w") as fh:
    fh.write("<svg xmlns='http://www.w3.org/2000/svg'/>")
sys.exit(rc)
