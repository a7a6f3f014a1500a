#!/usr/bin/env bash
# Runs ../shared/tools/conformance on every case of ../shared/corpus/cases.tsv: every file
# the reference tlparse writes must exist, text byte-equal, JSON equal, pages with its links.
# The cases of modes not built yet are listed in tests/conformance-xfail.txt: they must fail;
# one that passes is an error too ("XPASS"), so that the list only shrinks as modes land.
# Skips (exit 77) only when ../shared is absent, as on a user's clone of this repository.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared, need_python3
bin=$(realpath "$1")
if [ ! -x "$shared/tools/conformance" ] || [ ! -f "$shared/corpus/cases.tsv" ]; then
    echo "SKIP: ../shared (the reference corpus) is not beside this checkout; conformance not run"
    exit 77
fi
need_python3 conformance
# raw.jsonl timestamps carry the year of the run (the reference's behaviour); the
# manifests were recorded in 2026.
export TLPARSE_YEAR=2026

xfail=$( (grep -v '^#' "$here/conformance-xfail.txt" || true) | awk 'NF {print $1}')
cases=$(awk -F'\t' '!/^#/ && NF {print $1}' "$shared/corpus/cases.tsv")
for x in $xfail; do
    grep -qx "$x" <<<"$cases" || { echo "conformance: $x in conformance-xfail.txt is not a case of cases.tsv"; exit 1; }
done

# shellcheck disable=SC2086
out=$("$shared/tools/conformance" run "$shared/corpus/cases.tsv" "$bin" $cases 2>&1) || true
echo "$out"
bad=0
n=0
for c in $cases; do
    n=$((n + 1))
    if grep -qx "ok   $c" <<<"$out"; then
        if grep -qx "$c" <<<"$xfail"; then
            echo "XPASS: $c passes but is listed in tests/conformance-xfail.txt: remove it from the list"
            bad=1
        fi
    elif grep -q "^FAIL $c:" <<<"$out"; then
        grep -qx "$c" <<<"$xfail" || { echo "FAIL: $c (not an expected failure)"; bad=1; }
    else
        echo "FAIL: $c: no result from the conformance tool"
        bad=1
    fi
done
nx=$(wc -w <<<"$xfail")
echo "conformance: $n cases, $((n - nx)) expected to pass, $nx expected to fail (modes not built yet)"
exit $bad
