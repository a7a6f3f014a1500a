#!/usr/bin/env bash
# tlparse --serve (tests/serve_check.py): the report over HTTP on 127.0.0.1 only, files byte for
# byte, traversal and other methods refused, ports, refused combinations, SIGINT, and the live
# report of --watch --serve.
# Usage: tests/serve.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_python3 serve
exec python3 "$here/serve_check.py" "$1"
