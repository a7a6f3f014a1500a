#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Make the site's one file: web/index.html with page.js, worker.js and the engine (base64)
put in its @PLACEHOLDERS@. Each goes into a <script> element, which ends at the first
"</script": none of them may hold one (base64 cannot).

    mksite.py --wasm tlweb.wasm --dir web --version X.Y.Z --out site/index.html
"""
import argparse
import base64
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wasm", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    def read(name):
        with open(os.path.join(a.dir, name), encoding="utf-8") as f:
            return f.read()

    with open(a.wasm, "rb") as f:
        wasm = base64.b64encode(f.read()).decode("ascii")
    parts = {"@PAGE_JS@": read("page.js"), "@WORKER_JS@": read("worker.js"), "@WASM_BASE64@": wasm,
             "@VERSION@": a.version}
    page = read("index.html")
    for key, text in parts.items():
        if "</script" in text.lower():
            raise SystemExit("mksite.py: %s holds </script" % key)
        if page.count(key) != 1:
            raise SystemExit("mksite.py: index.html must hold %s once" % key)
        page = page.replace(key, text)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    tmp = a.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
