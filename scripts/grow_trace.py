#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Grow TORCH_TRACE logs into one big log, for bench/run.sh when ../shared is absent.

The input records are written again and again; copy k adds k * (highest frame_id + 1)
to every frame_id, so the result reads as one long run with many distinct frames.
Payload lines are copied untouched, so every has_payload md5 stays valid.  `str`
entries are written once (their ids mean the same thing in every copy).  Output stops
after the first whole record that reaches the requested size.

    scripts/grow_trace.py --size-mb 200 -o bench/out/big200.log tests/fixtures/demo.log
Python 3 standard library only.
"""
import argparse
import json
import re
import sys

PREFIX = re.compile(rb"[VIWEC]\d{4} \d{2}:\d{2}:\d{2}.\d{6} \d+[^:]+:\d+\] ")


def read_records(paths):
    """Return [(head bytes, envelope object or None, payload bytes)] for all inputs.

    head is the prefix line up to the envelope; the envelope object is only kept when
    it has an integer frame_id (the only records that change between copies)."""
    recs = []
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        cur = None
        for line in data.splitlines(keepends=True):
            m = PREFIX.search(line)
            if m and not line.startswith(b"\t"):
                if cur:
                    recs.append(cur)
                head, env_text = line[:m.end()], line[m.end():].rstrip(b"\r\n")
                try:
                    obj = json.loads(env_text)
                except ValueError:
                    obj = None
                if not (isinstance(obj, dict) and isinstance(obj.get("frame_id"), int)):
                    obj = None
                cur = [head, env_text, obj, []]
            elif cur:
                cur[3].append(line)
            # Lines before the first record are dropped.
        if cur:
            recs.append(cur)
    return [(h, e, o, b"".join(p)) for h, e, o, p in recs]


def grow(recs, out, target):
    stride = 1 + max((o["frame_id"] for _, _, o, _ in recs if o), default=0)
    written, copy = 0, 0
    while written < target:
        chunks = []
        for head, env_text, obj, payload in recs:
            if copy and env_text.startswith(b'{"str": '):
                continue
            if copy and obj is not None:
                shifted = dict(obj)
                shifted["frame_id"] = obj["frame_id"] + copy * stride
                env_text = json.dumps(shifted).encode()
            chunk = head + env_text + b"\n" + payload
            chunks.append(chunk)
            written += len(chunk)
            if written >= target:
                break
        out.write(b"".join(chunks))
        copy += 1
    return written, copy


def main():
    ap = argparse.ArgumentParser(description="Grow TORCH_TRACE logs into one big log (frame ids shifted).")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--size-mb", type=float, required=True, help="size of the output in MiB")
    a = ap.parse_args()
    recs = read_records(a.inputs)
    if not recs:
        sys.exit("grow_trace: no log records in the inputs")
    with open(a.out, "wb") as f:
        n, copies = grow(recs, f, int(a.size_mb * 1024 * 1024))
    print(f"grow_trace: wrote {n / 1048576:.1f} MiB ({copies} copies) to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
