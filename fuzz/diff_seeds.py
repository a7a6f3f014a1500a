#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Make the seeds of the diff fuzz target (fuzz/fuzz_diff.c): summaries printed by
`tlparse --json`, trimmed and joined in pairs.

    fuzz/diff_seeds.py TLPARSE OUT_DIR

Writes OUT_DIR/seed-<name>: the summaries of tests/fixtures/{demo,edge,export_kinds}.log and
of a small TORCH_LOGS text (tests/diff_check.py's), each used for both sides; and pairs
BEFORE NUL AFTER: demo against demo changed as tests/diff_check.py's fixed_new_slower does
(a graph break fixed, a new recompile, slower), and the text log against one with a new
recompile and its graph break gone. Each summary keeps every member the diff reads; it is
made compact and loses what the diff does not read (advice other than its category, findings,
values, examples), with long texts cut, so a pair fits in the target's -max_len (16 KiB,
fuzz/run.sh). Used to regenerate fuzz/corpus/diff/ (`fuzz/diff_seeds.py build/tlparse
fuzz/corpus/diff`).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests")
sys.path.insert(0, TESTS)
import diff_check  # noqa: E402

MAX_PAIR = 16384
MAX_TEXT = 160
DROP = {"findings", "generated_by", "example", "values", "explanation", "hint", "url", "code",
        "log_line", "title", "fix", "locations"}


def trim(v):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k in DROP:
                continue
            if k == "advice" and isinstance(x, dict):
                x = {"category": x.get("category")}
            out[k] = trim(x)
        return out
    if isinstance(v, list):
        return [trim(x) for x in v]
    if isinstance(v, str) and len(v) > MAX_TEXT:
        return v[:MAX_TEXT]
    return v


def summary(tl, log):
    p = subprocess.run([tl, "--json", log], capture_output=True, check=True)
    s = trim(json.loads(p.stdout))
    assert s["schema"] == "tlparse-summary/1"
    s["source"]["path"] = os.path.basename(log)  # the same wherever it is made
    return json.dumps(s, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    tl, out = os.path.abspath(argv[1]), argv[2]
    os.makedirs(out, exist_ok=True)
    seeds = {}
    fixtures = os.path.join(TESTS, "fixtures")
    for name in ("demo", "edge", "export_kinds"):
        seeds[name] = summary(tl, os.path.join(fixtures, name + ".log"))
    with tempfile.TemporaryDirectory(prefix="tl-diff-seeds-") as tmp:
        changed = os.path.join(tmp, "demo_changed.log")
        entries = diff_check.read_entries(os.path.join(fixtures, "demo.log"))
        diff_check.write_entries(diff_check.fixed_new_slower(entries), changed)
        demo_changed = summary(tl, changed)
        texts = []
        for i, kw in enumerate([{}, {"graph_break": False, "extra_recompile": True}]):
            path = os.path.join(tmp, "t%d.log" % i)
            with open(path, "w", encoding="utf-8") as f:
                f.write(diff_check.text_log(**kw))
            texts.append(summary(tl, path))
    seeds["torch_logs"] = texts[0]
    seeds["pair-demo-fixed-new-slower"] = seeds["demo"] + b"\0" + demo_changed
    seeds["pair-torch_logs"] = texts[0] + b"\0" + texts[1]
    for name, blob in seeds.items():
        assert len(blob) <= MAX_PAIR, (name, len(blob))
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(blob)
        print("%s: %d bytes" % (name, len(blob)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
