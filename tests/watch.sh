#!/usr/bin/env bash
# tlparse --watch against logs being written (tests/watch_check.py): findings said once, in
# order, in time; the end report equal to the batch one; truncation, replacement, rank logs
# that come later, compressed logs, --fail-on and --run; with inotify and with the poll.
# Usage: tests/watch.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_python3 watch
exec python3 "$here/watch_check.py" "$1"
