#!/usr/bin/env bash
# --redact, attacked: tests/fixtures/canary.log plants a unique canary in every field of a
# trace that can hold the user's code or data (tests/fixtures/canary.json says where; both
# from scripts/make_canary_trace.py). No canary may be left in a redacted report (zip, single
# page, --json/--summary, multi-rank), while file names, lines, functions, compile ids, failure
# types, op names, shapes, counts and metrics stay; raw.log and raw.jsonl are left out; the
# index says it was redacted. See tests/redact_check.py.
# Usage: tests/redact.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, need_python3
bin=$(realpath "$1")
need_python3 redact
exec python3 "$here/redact_check.py" "$bin"
