#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Build the tlparse-c wheel from a tlparse binary and python/tlparse_c, with the standard
library only (no setuptools, no pip):

    scripts/build_wheel.py --binary build-wheel/tlparse --out build/wheel

The binary goes in as tlparse_c-VERSION.data/scripts/tlparse, which pip installs on PATH
(as binary tools are shipped on PyPI); it should need nothing but glibc (`make wheel` links
libmd, zlib and libzstd statically). The archive is reproducible: fixed order and times.
"""

import argparse
import base64
import hashlib
import os
import platform
import re
import sys
import zipfile

NAME = "tlparse_c"
DIST = "tlparse-c"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SUMMARY = "A fast C re-implementation of PyTorch's tlparse: TORCH_TRACE logs to HTML reports"
DESCRIPTION = """\
# tlparse-c

A fast, drop-in re-implementation of PyTorch's
[`tlparse`](https://github.com/pytorch/tlparse) in C. It reads the structured compile log
that `torch.compile` writes with `TORCH_TRACE=/tmp/tracedir python foo.py` and turns it into
an HTML report, or says what went wrong (graph breaks, recompiles, specializations,
failures) with `tlparse --summary` / `--json`.

The wheel installs the `tlparse` command (a native binary that needs only glibc) and a small
Python module:

```python
import tlparse_c
s = tlparse_c.summary("/tmp/tracedir")      # dict of `tlparse --json`
index = tlparse_c.report("/tmp/tracedir")   # writes tl_out/, returns tl_out/index.html
```
"""


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(tlparse VERSION ([0-9.]+)", f.read())
    if not m:
        sys.exit("build_wheel: no project version in CMakeLists.txt")
    return m.group(1)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", required=True, help="the tlparse executable to ship")
    ap.add_argument("--out", required=True, help="folder for the .whl")
    ap.add_argument("--plat", default="linux_" + platform.machine(), help="platform tag")
    args = ap.parse_args()

    version = project_version()
    tag = "py3-none-" + args.plat
    data_dir = f"{NAME}-{version}.data"
    info_dir = f"{NAME}-{version}.dist-info"
    with open(args.binary, "rb") as f:
        exe = f.read()
    if not exe.startswith(b"\x7fELF"):
        sys.exit(f"build_wheel: {args.binary} is not an ELF executable")

    files = []  # (archive name, bytes, mode)
    pkg = os.path.join(ROOT, "python", NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                files.append((f"{NAME}/{name}", f.read(), 0o644))
    files.append((f"{data_dir}/scripts/tlparse", exe, 0o755))
    metadata = (
        "Metadata-Version: 2.1\n"
        f"Name: {DIST}\n"
        f"Version: {version}\n"
        f"Summary: {SUMMARY}\n"
        "Home-page: https://github.com/pytorch/tlparse\n"
        "License: BSD-3-Clause\n"
        "Keywords: pytorch,torch.compile,tlparse,TORCH_TRACE\n"
        "Classifier: License :: OSI Approved :: BSD License\n"
        "Classifier: Operating System :: POSIX :: Linux\n"
        "Classifier: Programming Language :: C\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Requires-Python: >=3.8\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + DESCRIPTION
    )
    wheel = (
        "Wheel-Version: 1.0\n"
        "Generator: tlparse scripts/build_wheel.py\n"
        "Root-Is-Purelib: false\n"
        f"Tag: {tag}\n"
    )
    files.append((f"{info_dir}/METADATA", metadata.encode("utf-8"), 0o644))
    files.append((f"{info_dir}/WHEEL", wheel.encode("utf-8"), 0o644))
    files.append((f"{info_dir}/top_level.txt", f"{NAME}\n".encode("utf-8"), 0o644))
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d, _ in files)
    record += f"{info_dir}/RECORD,,\n"
    files.append((f"{info_dir}/RECORD", record.encode("utf-8"), 0o644))

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{NAME}-{version}-{tag}.whl")
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, path)
    print(path)


if __name__ == "__main__":
    main()
