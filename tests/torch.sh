#!/usr/bin/env bash
# The diagnosis against a real PyTorch (tests/torch/torch_check.py): the scenarios of
# tests/torch/scenarios/ run under TORCH_TRACE and TORCH_LOGS, and what tlparse says of each
# must be what tests/torch/expected.py says happened; then tlparse --watch --run on a real
# training loop that starts recompiling midway (tests/torch/watch_check.py); then a two-rank
# job under a real Slurm, its report made on its nodes by tlparse-slurm (tests/slurm.sh --torch).
#
# PyTorch comes from $TORCH_PYTHON (any python3 with torch: `TORCH_PYTHON=python3 make
# check-torch`), else from ../shared/tools/torch-python (PyTorch 2.6 in a Debian 13 root).
# `make check-torch` (and CI, on the host) always runs it: it builds that root when needed
# (about 5 minutes, once per machine). `make check` runs it when PyTorch is ready to use, and
# otherwise says so in one line and passes: a fresh root would have to build PyTorch's root
# anew on every run.
# Usage: tests/torch.sh path/to/tlparse [SCENARIO...]
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared
bin=$(realpath "$1")
shift
command -v python3 >/dev/null || { echo "torch: FAIL: python3 is needed (Debian package python3)"; exit 1; }
if [ -z "${TORCH_PYTHON:-}" ] && [ -z "${TL_TORCH_REQUIRED:-}" ]; then
    tool=$shared/tools/torch-python
    ready=${TORCH_ROOT:-/var/cache/torch-root}/trixie/.ready
    if [ ! -x "$tool" ]; then
        echo "torch: no PyTorch on this machine (no TORCH_PYTHON, no ../shared/tools/torch-python):" \
            "the suite against a real PyTorch runs with \`TORCH_PYTHON=python3 make check-torch\`"
        exit 0
    fi
    if [ ! -e "$ready" ]; then
        echo "torch: PyTorch's root is not built on this machine ($ready):" \
            "\`make check-torch\` builds it (5 minutes) and runs the suite; CI runs it on the host"
        exit 0
    fi
fi
export TL_SHARED=$shared
python3 "$here/torch/torch_check.py" "$bin" "$@"
rc=$?
# --watch --run on a training loop that starts recompiling midway (all scenarios only)
if [ $# -eq 0 ]; then
    python3 "$here/torch/watch_check.py" "$bin" || rc=1
    bash "$here/slurm.sh" "$bin" --torch || rc=1
fi
exit $rc
