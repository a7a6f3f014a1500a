#!/usr/bin/env bash
# The wheel's pytest plugin (python/tlparse_c/pytest_plugin.py) under a real pytest and a real
# PyTorch (tests/pytest_plugin/check.py says what is checked): `make wheel`, then
#   - PyTorch 2.13: a venv beside the binary (build/pytest-2.13) with pytest and pytest-xdist
#     from PyPI and the wheel, reading torch from the venv tests/torch.sh makes
#     (build/torch-2.13, pinned torch==2.13.0; made here when missing and TL_TORCH_REQUIRED is
#     set, as torch.sh does) through a .pth file, so torch is installed once;
#     $TL_TORCH213_PYTHON names another python with torch 2.13;
#   - PyTorch 2.6: ../shared/tools/torch-python (Debian 13's python3-torch in a root), with
#     pytest, pytest-xdist and the wheel put in a folder of ours by `pip install --target` and
#     named by PYTHONPATH and PATH: the shared root itself is never changed.
# Each version runs the suite plainly and under `pytest -n 2` (pytest-xdist).
# Label "pytest", out of `make check`'s default set: `make check-torch` runs it after
# tests/torch.sh. Like torch.sh, a version that is not ready here is said in one line and
# skipped unless TL_TORCH_REQUIRED is set (then it fails).
# Usage: tests/pytest_plugin.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared
need_python3 pytest_plugin
bin=$(realpath "$1")
root=$(cd "$here/.." && pwd)
build=$(dirname "$bin")
required=${TL_TORCH_REQUIRED:-}
quiet_pip=(-q --disable-pip-version-check)
rc=0
ran=0

# the wheel of this tree (its own build dir, build-wheel/, as `make wheel` makes it)
wheels=$(mktemp -d)
scratch=$(mktemp -d)
trap 'rm -rf "$wheels" "$scratch"' EXIT
if ! make --no-print-directory -C "$root" wheel WHEEL_DIR="$wheels" >"$wheels/log" 2>&1; then
    tail -n 20 "$wheels/log"
    echo "pytest_plugin: FAIL: make wheel"
    exit 1
fi
whl=$(ls "$wheels"/tlparse_c-*.whl)

# ---- PyTorch 2.13
torch213=${TL_TORCH213_PYTHON:-$build/torch-2.13/bin/python}
if [ -z "${TL_TORCH213_PYTHON:-}" ] && [ ! -e "$build/torch-2.13/.ready" ] && [ -n "$required" ]; then
    venv=$build/torch-2.13
    echo "pytest_plugin: making $venv (pip install torch==2.13.0)"
    rm -rf "$venv"
    if python3 -m venv "$venv" && "$venv/bin/pip" install -q torch==2.13.0 >"$venv.log" 2>&1; then
        touch "$venv/.ready"
    else
        cat "$venv.log"
        echo "pytest_plugin: FAIL: cannot install torch==2.13.0 in $venv"
        exit 1
    fi
fi
if [ -x "$torch213" ] && { [ -n "${TL_TORCH213_PYTHON:-}" ] || [ -e "$build/torch-2.13/.ready" ]; }; then
    venv=$build/pytest-2.13
    purelib=$("$torch213" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    stamp="$purelib pytest pytest-xdist" # a venv made for other packages is made again
    if [ ! -e "$venv/.ready" ] || [ "$(cat "$venv/.ready")" != "$stamp" ]; then
        rm -rf "$venv"
        if "$torch213" -m venv "$venv" >"$scratch/venv.log" 2>&1 &&
            echo "$purelib" >"$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/torch-2.13.pth" &&
            "$venv/bin/pip" install "${quiet_pip[@]}" pytest pytest-xdist >>"$scratch/venv.log" 2>&1; then
            echo "$stamp" >"$venv/.ready"
        else
            cat "$scratch/venv.log"
            echo "pytest_plugin: FAIL: cannot make $venv (a venv with pytest and pytest-xdist from PyPI)"
            exit 1
        fi
    fi
    if "$venv/bin/pip" install "${quiet_pip[@]}" --no-deps --force-reinstall "$whl" >"$scratch/whl.log" 2>&1; then
        python3 "$here/pytest_plugin/check.py" --label 2.13 --work "$scratch/2.13" \
            --tlparse "$bin" -- "$venv/bin/python" || rc=1
        ran=$((ran + 1))
    else
        cat "$scratch/whl.log"
        echo "pytest_plugin: FAIL: cannot install the wheel into $venv"
        rc=1
    fi
else
    echo "pytest_plugin: PyTorch 2.13 is not installed here ($build/torch-2.13): \`make check-torch\` installs it"
    [ -n "$required" ] && rc=1
fi

# ---- PyTorch 2.6: torch-python's root is shared and stays as it is; pytest and the wheel go
# into a folder under /tmp (torch-python shows /tmp inside its root), by pip --target for the
# root's Python
tool=$shared/tools/torch-python
ready=${TORCH_ROOT:-/var/cache/torch-root}/trixie/.ready
if [ ! -x "$tool" ]; then
    echo "pytest_plugin: no ../shared/tools/torch-python: PyTorch 2.6 is not run"
    [ -n "$required" ] && rc=1
elif [ ! -e "$ready" ] && [ -z "$required" ]; then
    echo "pytest_plugin: PyTorch 2.6's root is not built on this machine ($ready): \`make check-torch\` builds it"
else
    pyver=$("$tool" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>"$scratch/tp.log")
    site=$scratch/site-2.6
    pip=("$build/pytest-2.13/bin/pip")
    [ -x "${pip[0]}" ] || pip=(python3 -m pip)
    if [ -z "$pyver" ]; then
        cat "$scratch/tp.log"
        echo "pytest_plugin: FAIL: ../shared/tools/torch-python does not run"
        rc=1
    elif ! "${pip[@]}" install "${quiet_pip[@]}" --target "$site" --python-version "$pyver" \
        --only-binary=:all: pytest pytest-xdist "$whl" >"$scratch/site.log" 2>&1; then
        grep -v 'is ignored' "$scratch/site.log"
        echo "pytest_plugin: FAIL: cannot put pytest, pytest-xdist (for Python $pyver) and the wheel in $site"
        rc=1
    else
        PYTHONPATH=$site PATH=$site/bin:$PATH python3 "$here/pytest_plugin/check.py" --label 2.6 \
            --work "$scratch/2.6" --tlparse "$bin" -- "$(realpath "$tool")" || rc=1
        ran=$((ran + 1))
    fi
fi

echo "pytest_plugin: $ran PyTorch version(s) run"
exit $rc
