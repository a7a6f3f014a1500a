#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Build the tlparse-c wheel from a tlparse binary and python/tlparse_c, with the standard
library only (no setuptools, no pip):

    scripts/build_wheel.py --binary build-wheel/tlparse --out build/wheel

The binary goes in as tlparse_c-VERSION.data/scripts/tlparse, which pip installs on PATH
(as binary tools are shipped on PyPI), with scripts/tlparse-slurm beside it; the binary should need nothing but glibc (`make wheel` links
libmd, zlib and libzstd statically). The wheel is tagged manylinux_2_X, X the highest
GLIBC_2.X symbol version the binary needs (read from its ELF .gnu.version_r, as auditwheel
does), so a package index takes it. The archive is reproducible: fixed order and times.
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

The wheel installs the `tlparse` command (a native binary that needs only glibc),
`tlparse-slurm` (the multi-rank report of a Slurm job, made on the nodes that hold its logs)
and a small Python module:

```python
import tlparse_c
s = tlparse_c.summary("/tmp/tracedir")      # dict of `tlparse --json`
index = tlparse_c.report("/tmp/tracedir")   # writes tl_out/, returns tl_out/index.html
```
"""


def project_version():
    """The version, from the file VERSION (the one place it is written)."""
    with open(os.path.join(ROOT, "VERSION"), encoding="utf-8") as f:
        version = f.read().strip()
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", version):
        sys.exit(f"build_wheel: VERSION must hold MAJOR.MINOR.PATCH, found {version!r}")
    return version


# The libraries a manylinux wheel may need from the system (PEP 600: those every glibc
# distribution has; auditwheel's policy lists these for x86_64).
MANYLINUX_LIBS = {
    "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1",
    "libresolv.so.2", "libnsl.so.1", "libgcc_s.so.1", "libcrypt.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}


def elf_needs(exe):
    """The libraries (DT_NEEDED) and symbol versions (.gnu.version_r) an ELF64 little-endian
    executable asks of the system, read from its section headers."""
    import struct

    if exe[:4] != b"\x7fELF" or exe[4] != 2 or exe[5] != 1:
        sys.exit("build_wheel: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", exe, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", exe, 0x3A)
    sections = []
    for i in range(shnum):
        # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, ...
        _, kind, _, _, off, size, link = struct.unpack_from("<IIQQQQI", exe, shoff + i * shentsize)
        sections.append((kind, off, size, link))

    def string(table, at):
        off = sections[table][1] + at
        return exe[off:exe.index(b"\0", off)].decode("ascii", "replace")

    libs, versions = [], set()
    for kind, off, size, link in sections:
        if kind == 6:  # SHT_DYNAMIC: DT_NEEDED entries name libraries in the linked strings
            for at in range(off, off + size, 16):
                tag, val = struct.unpack_from("<qQ", exe, at)
                if tag == 1:
                    libs.append(string(link, val))
        elif kind == 0x6FFFFFFE:  # SHT_GNU_verneed
            at = off
            while True:
                _, cnt, _, aux, nxt = struct.unpack_from("<HHIII", exe, at)
                a = at + aux
                for _ in range(cnt):
                    _, _, _, name, anext = struct.unpack_from("<IHHII", exe, a)
                    versions.add(string(link, name))
                    a += anext
                if not nxt:
                    break
                at += nxt
    return libs, versions


def manylinux_tag(exe):
    """manylinux_2_X_<arch>, X the highest GLIBC_2.X symbol version exe needs (what auditwheel
    computes), or exit when exe needs a library no manylinux system promises."""
    libs, versions = elf_needs(exe)
    other = [lib for lib in libs if lib not in MANYLINUX_LIBS]
    if other:
        sys.exit("build_wheel: the binary needs %s, which a manylinux wheel may not" % ", ".join(other))
    minors = [int(m.group(1)) for v in versions for m in [re.fullmatch(r"GLIBC_2\.(\d+)(?:\.\d+)?", v)] if m]
    if not minors:
        sys.exit("build_wheel: the binary names no GLIBC_2.X symbol version")
    return "manylinux_2_%d_%s" % (max(minors), platform.machine())


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", required=True, help="the tlparse executable to ship")
    ap.add_argument("--out", required=True, help="folder for the .whl")
    ap.add_argument("--plat", help="platform tag [default: manylinux_2_X of the binary]")
    args = ap.parse_args()

    version = project_version()
    data_dir = f"{NAME}-{version}.data"
    info_dir = f"{NAME}-{version}.dist-info"
    with open(args.binary, "rb") as f:
        exe = f.read()
    if not exe.startswith(b"\x7fELF"):
        sys.exit(f"build_wheel: {args.binary} is not an ELF executable")
    tag = "py3-none-" + (args.plat or manylinux_tag(exe))

    files = []  # (archive name, bytes, mode)
    pkg = os.path.join(ROOT, "python", NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") and name != "_version.py":
            with open(os.path.join(pkg, name), "rb") as f:
                files.append((f"{NAME}/{name}", f.read(), 0o644))
    # the package's __version__ (python/tlparse_c reads VERSION when this file is absent)
    files.append((f"{NAME}/_version.py", f'version = "{version}"\n'.encode("utf-8"), 0o644))
    files.append((f"{data_dir}/scripts/tlparse", exe, 0o755))
    # tlparse-slurm (bash) beside it: it runs the tlparse of its own folder
    with open(os.path.join(ROOT, "scripts", "tlparse-slurm"), "rb") as f:
        files.append((f"{data_dir}/scripts/tlparse-slurm", f.read(), 0o755))
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
    # the pytest plugin (python/tlparse_c/pytest_plugin.py): pytest loads it from this entry
    # point, so `pytest --tlparse` works wherever the wheel is installed
    entry_points = "[pytest11]\ntlparse = tlparse_c.pytest_plugin\n"
    files.append((f"{info_dir}/entry_points.txt", entry_points.encode("utf-8"), 0o644))
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
