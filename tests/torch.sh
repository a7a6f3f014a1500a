#!/usr/bin/env bash
# The diagnosis against a real PyTorch (tests/torch/torch_check.py): the scenarios of
# tests/torch/scenarios/ run under TORCH_TRACE and TORCH_LOGS, and what tlparse says of each
# must be what tests/torch/expected.py says happened, per PyTorch version; then tlparse
# --watch --run on a real training loop that starts recompiling midway
# (tests/torch/watch_check.py); then a two-rank job under a real Slurm, its report made on its
# nodes by tlparse-slurm (tests/slurm.sh --torch). At the end, a table of scenarios x versions.
#
# Two PyTorch versions: 2.13 (current), from a venv this suite makes beside the binary
# (build/torch-2.13: `pip install torch==2.13.0`, pinned), and 2.6 from
# ../shared/tools/torch-python (Debian 13's package in a root it builds once, 5 minutes).
# $TORCH_PYTHON (any python3 with torch) runs it with that one only.
# `make check-torch` (and CI, on the host) makes what is missing and runs both. `make check`
# runs the versions that are ready on this machine and says in one line which are not: a
# fresh root would otherwise build PyTorch's root anew on every run.
# Usage: tests/torch.sh path/to/tlparse [SCENARIO...]
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared
bin=$(realpath "$1")
shift
command -v python3 >/dev/null || { echo "torch: FAIL: python3 is needed (Debian package python3)"; exit 1; }
export TL_SHARED=$shared
required=${TL_TORCH_REQUIRED:-}

pythons=()
if [ -n "${TORCH_PYTHON:-}" ]; then
    pythons=("$TORCH_PYTHON")
else
    venv=$(dirname "$bin")/torch-2.13
    if [ ! -e "$venv/.ready" ] && [ -n "$required" ]; then
        echo "torch: making $venv (pip install torch==2.13.0)"
        rm -rf "$venv"
        if python3 -m venv "$venv" && "$venv/bin/pip" install -q torch==2.13.0 >"$venv.log" 2>&1; then
            touch "$venv/.ready"
        else
            cat "$venv.log"
            echo "torch: FAIL: cannot install torch==2.13.0 in $venv (see above)"
            exit 1
        fi
    fi
    if [ -e "$venv/.ready" ]; then
        pythons+=("$venv/bin/python")
    else
        echo "torch: PyTorch 2.13 is not installed here ($venv): \`make check-torch\` installs it"
    fi
    tool=$shared/tools/torch-python
    ready=${TORCH_ROOT:-/var/cache/torch-root}/trixie/.ready
    if [ ! -x "$tool" ]; then
        echo "torch: no ../shared/tools/torch-python: PyTorch 2.6 is not run"
        [ -n "$required" ] && exit 1
    elif [ -e "$ready" ] || [ -n "$required" ]; then
        pythons+=("$(realpath "$tool")")
    else
        echo "torch: PyTorch 2.6's root is not built on this machine ($ready):" \
            "\`make check-torch\` builds it (5 minutes) and runs the suite; CI runs it on the host"
    fi
fi
[ ${#pythons[@]} -eq 0 ] && exit 0

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
rc=0
i=0
for py in "${pythons[@]}"; do
    i=$((i + 1))
    TORCH_PYTHON=$py python3 "$here/torch/torch_check.py" "$bin" --results "$results/$i.json" "$@" || rc=1
    # --watch --run on a training loop that starts recompiling midway (all scenarios only)
    if [ $# -eq 0 ]; then
        TORCH_PYTHON=$py python3 "$here/torch/watch_check.py" "$bin" || rc=1
        TORCH_PYTHON=$py bash "$here/slurm.sh" "$bin" --torch || rc=1
    fi
done
ls "$results"/*.json >/dev/null 2>&1 && python3 "$here/torch/torch_check.py" --table "$results"/*.json
exit $rc
