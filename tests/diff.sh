#!/usr/bin/env bash
# `tlparse diff`: pairs of runs made from our fixtures (and the corpus's logs when ../shared is
# there), each pair with every kind of input on each side; see tests/diff_check.py.
# Usage: tests/diff.sh path/to/tlparse
set -uo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
shared=${TL_SHARED:-$here/../../shared}
command -v python3 >/dev/null || { echo "diff: python3 is needed (Debian package python3)"; exit 1; }
exec python3 "$here/diff_check.py" "$bin" "$shared"
