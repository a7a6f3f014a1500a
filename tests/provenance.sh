#!/usr/bin/env bash
# Inductor provenance tracking (-i) end to end: every provenance log of ../shared/corpus/logs
# must give the files and the embedded line mappings of spec modes.md §5.2, the same with
# --plain-text, and {} for the JIT logs' provenance_tracking_-_-_-_-.html
# (see tests/provenance_check.py, which holds the expected values).
# Skips (exit 77) only when ../shared is absent, as on a user's clone of this repository.
# Usage: tests/provenance.sh path/to/tlparse
set -euo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
shared=${TL_SHARED:-$here/../../shared}
if [ ! -d "$shared/corpus/logs" ]; then
    echo "SKIP: ../shared (the reference corpus) is not beside this checkout; provenance not run"
    exit 77
fi
command -v python3 >/dev/null || { echo "provenance: python3 is needed (Debian package python3)"; exit 1; }
exec python3 "$here/provenance_check.py" "$bin" "$shared"
