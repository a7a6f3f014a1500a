#!/usr/bin/env bash
# Inductor provenance tracking (-i) end to end: every provenance log of ../shared/corpus/logs
# must give the files and the embedded line mappings of spec modes.md §5.2, the same with
# --plain-text, and {} for the JIT logs' provenance_tracking_-_-_-_-.html
# (see tests/provenance_check.py, which holds the expected values).
# Skips (exit 77) only when ../shared is absent, as on a user's clone of this repository.
# Usage: tests/provenance.sh path/to/tlparse
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared, need_python3
bin=$(realpath "$1")
if [ ! -d "$shared/corpus/logs" ]; then
    echo "SKIP: ../shared (the reference corpus) is not beside this checkout; provenance not run"
    exit 77
fi
need_python3 provenance
exec python3 "$here/provenance_check.py" "$bin" "$shared"
