#!/usr/bin/env bash
# `tlparse diff`: pairs of runs made from our fixtures (and the corpus's logs when ../shared is
# there), each pair with every kind of input on each side; see tests/diff_check.py.
# Usage: tests/diff.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared, need_python3
bin=$(realpath "$1")
need_python3 diff
exec python3 "$here/diff_check.py" "$bin" "$shared"
