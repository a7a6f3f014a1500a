#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cut TORCH_TRACE logs into fuzz seeds, one folder per target.

    fuzz/seeds.py OUT_DIR LOG_OR_FOLDER...

Writes OUT_DIR/<target>/seed-<sha1>: for glog and html whole envelope lines,
for envelope and json their JSON text (json also gets JSON payloads), for
pyhl inductor_output_code payloads, for reader runs of whole lines and for
pipeline runs of whole entries (each run starts with the log's string-table
entries, so stack frames still resolve). Sizes stay under each target's
-max_len in fuzz/run.sh. Used to regenerate the committed seeds from
tests/fixtures (fuzz/corpus/) and by fuzz/run.sh, at run time only, on
../shared/corpus/logs.
"""
import hashlib
import os
import re
import sys

MAX = {"glog": 4096, "envelope": 4096, "json": 4096, "html": 4096,
       "pyhl": 8192, "reader": 8192, "pipeline": 65536}
PER_KIND = 3     # lines kept per first envelope key, per log
PER_LOG = 6      # reader/pipeline chunks and pyhl payloads per log
GLOG = re.compile(rb"[VIWEC]\d{4} \d\d:\d\d:\d\d.\d{6} \d+[^:]+:\d+\] ")
FIRST_KEY = re.compile(rb'\{\s*"([^"]*)"')


def entries(data):
    """Split a log into entries: a line plus the tab-prefixed lines after it."""
    out = []
    for line in data.split(b"\n"):
        if out and line.startswith(b"\t"):
            out[-1].append(line)
        else:
            out.append([line])
    return [e for e in out if e != [b""]]


def save(out, target, blob, seen):
    if not blob or len(blob) > MAX[target]:
        return
    digest = hashlib.sha1(blob).hexdigest()[:16]
    if (target, digest) in seen:
        return
    seen.add((target, digest))
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + digest), "wb") as f:
        f.write(blob)


def chunks(units, limit, prefix=b""):
    """Consecutive runs of units (bytes) joined, each run at most limit bytes."""
    runs, cur = [], prefix
    for u in units:
        if len(cur) + len(u) > limit and cur != prefix:
            runs.append(cur)
            cur = prefix
        if len(prefix) + len(u) <= limit:
            cur += u
    if cur != prefix:
        runs.append(cur)
    return runs


def spread(items, n):
    """At most n items, taken evenly from the whole list."""
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def one_log(out, data, seen):
    ents = entries(data)
    kinds = {}
    for e in ents:
        head = e[0]
        m = GLOG.search(head)
        if not m:
            continue
        env = head[m.end():]
        k = FIRST_KEY.match(env)
        key = k.group(1) if k else b""
        n = kinds.get(key, 0)
        if n >= PER_KIND:
            continue
        kinds[key] = n + 1
        save(out, "glog", head, seen)
        save(out, "html", head, seen)
        save(out, "envelope", env, seen)
        save(out, "json", env, seen)
        if len(e) > 1:
            payload = b"\n".join(l[1:] for l in e[1:]) + b"\n"
            if payload.lstrip()[:1] in (b"{", b"["):
                save(out, "json", payload, seen)
    code = [e for e in ents if b'"inductor_output_code"' in e[0] and len(e) > 1]
    for e in spread(code, PER_LOG):
        payload = b"\n".join(l[1:] for l in e[1:]) + b"\n"
        save(out, "pyhl", payload[: MAX["pyhl"]], seen)
    lines = [l + b"\n" for l in data.split(b"\n")]
    for c in spread(chunks(lines, MAX["reader"]), PER_LOG):
        save(out, "reader", c, seen)
    strs = b"".join(b"\n".join(e) + b"\n" for e in ents if b'{"str": [' in e[0])
    if len(strs) > MAX["pipeline"] // 4:
        strs = b""
    body = [b"\n".join(e) + b"\n" for e in ents if b'{"str": [' not in e[0]]
    for c in spread(chunks(body, MAX["pipeline"], strs), PER_LOG):
        save(out, "pipeline", c, seen)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out = argv[1]
    seen = set()
    files = []
    for p in argv[2:]:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names]
        else:
            files.append(p)
    for path in sorted(files):
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b" or data[:4] == b"\x28\xb5\x2f\xfd":
            continue  # compressed: the reader target gets its own seeds
        one_log(out, data, seen)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
