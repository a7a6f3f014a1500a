# SPDX-License-Identifier: BSD-3-Clause
"""tlparse from Python: the wheel's `tlparse` binary, run on a TORCH_TRACE log.

    import tlparse_c
    s = tlparse_c.summary("/tmp/tracedir")          # the diagnosis, as a dict
    print(s["compile_ids"], len(s["graph_breaks"]))
    html = tlparse_c.report("/tmp/tracedir", out="tl_out", fail_on="graph-breaks")

The binary is the one the wheel installed beside the environment's scripts (the `tlparse`
command), else the first `tlparse` on PATH.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig


def _version():
    """The version: the wheel's (scripts/build_wheel.py writes _version.py from the file
    VERSION), else, in a source tree, that file's."""
    try:
        from ._version import version
        return version
    except ImportError:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "VERSION")
        try:
            with open(path, encoding="utf-8") as f:
                return f.read().strip()
        except OSError:
            return "unknown"


__version__ = _version()
__all__ = ["TlparseError", "binary", "summary", "report", "__version__"]


class TlparseError(RuntimeError):
    """tlparse exited with an error; .returncode, .stderr and .cmd say how."""

    def __init__(self, cmd, returncode, stderr):
        self.cmd = list(cmd)
        self.returncode = returncode
        self.stderr = stderr
        detail = stderr.strip() or "(nothing on stderr)"
        super().__init__(f"tlparse exited with status {returncode}: {detail}")


def _script_dirs():
    """The scripts folders pip may have put the wheel's binary into."""
    seen = []
    schemes = [None]
    try:
        schemes.append(sysconfig.get_preferred_scheme("user"))
    except AttributeError:  # Python < 3.10
        schemes.append(os.name + "_user")
    for scheme in schemes:
        try:
            d = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        if d and d not in seen:
            seen.append(d)
    # The folder of the running interpreter (a venv's bin/ when not activated).
    d = os.path.dirname(sys.executable)
    if d and d not in seen:
        seen.append(d)
    return seen


def binary():
    """The path of the tlparse executable; FileNotFoundError when there is none."""
    for d in _script_dirs():
        p = os.path.join(d, "tlparse")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    p = shutil.which("tlparse")
    if p:
        return p
    raise FileNotFoundError(
        "no tlparse executable beside the Python scripts (%s) or on PATH; "
        "reinstall the tlparse-c wheel" % ", ".join(_script_dirs())
    )


def _flags(flags):
    """report(..., jobs=4, no_browser=True) -> ["--jobs", "4", "--no-browser"]."""
    args = []
    for key, value in flags.items():
        if value is None or value is False:
            continue
        name = ("-" if len(key) == 1 else "--") + key.replace("_", "-")
        if value is True:
            args.append(name)
        elif isinstance(value, (list, tuple)):  # fail_on=["graph-breaks", "recompiles"]
            args += [name, ",".join(str(v) for v in value)]
        else:
            args += [name, str(value)]
    return args


def _run(args):
    cmd = [binary()] + args
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise TlparseError(cmd, proc.returncode, stderr)
    return proc.stdout


def summary(path):
    """The diagnosis of the log (or folder, or TORCH_LOGS text) at path, as the dict of
    `tlparse --json PATH` (schema tlparse-summary/1). Raises TlparseError on failure."""
    return json.loads(_run(["--json", os.fspath(path)]).decode("utf-8"))


def report(path, out="tl_out", overwrite=True, **flags):
    """Write the HTML report of path into the folder out (replacing it when overwrite) and
    return the path of its index.html. Other tlparse flags are keyword arguments:
    report(p, plain_text=True, fail_on="graph-breaks,recompiles", jobs=4, all_ranks_html=True).
    Raises TlparseError when tlparse fails (or when --fail-on found something)."""
    args = [os.fspath(path), "-o", os.fspath(out), "--no-browser"]
    if overwrite:
        args.append("--overwrite")
    _run(args + _flags(flags))
    return os.path.join(os.path.abspath(os.fspath(out)), "index.html")
