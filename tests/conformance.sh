#!/usr/bin/env bash
# Runs ../shared/tools/conformance on the single-rank corpus cases: every file the
# reference tlparse writes must exist, text byte-equal, JSON equal, pages with its links.
# Skips (exit 77) when ../shared is absent, as on a user's clone.
set -euo pipefail
bin=$(realpath "$1")
shared=${TL_SHARED:-$(dirname "$0")/../../shared}
if [ ! -x "$shared/tools/conformance" ] || [ ! -f "$shared/corpus/cases.tsv" ]; then
    echo "SKIP: ../shared (the reference corpus) is not beside this checkout; conformance not run"
    exit 77
fi
if ! command -v python3 >/dev/null; then
    echo "SKIP: python3 is needed to run ../shared/tools/conformance"
    exit 77
fi
# raw.jsonl timestamps carry the year of the run (the reference's behaviour); the
# manifests were recorded in 2026.
export TLPARSE_YEAR=2026
cases=(simple simple_plain comp_failure comp_metrics cache_hit_miss cache_hit_miss_plain
    chromium_events artifacts links export export_guard_added provenance_jit)
out=$("$shared/tools/conformance" run "$shared/corpus/cases.tsv" "$bin" "${cases[@]}" 2>&1) || {
    echo "$out"
    exit 1
}
echo "$out"
