#!/usr/bin/env bash
# Golden output trees: for every tests/fixtures/NAME.log with a folder tests/golden/NAME,
# run tlparse (with the flags in tests/golden/NAME.flags, if any) and compare the whole
# output tree with the folder, byte for byte (raw.log is compared with the input instead).
# UPDATE_GOLDEN=1 rewrites the folders from the current binary.
set -euo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TLPARSE_YEAR=2026 # raw.jsonl timestamps carry the year of the run
pass=0 fail=0
for want in "$here"/golden/*/; do
    name=$(basename "$want")
    log="$name.log" # relative, so messages do not depend on where the checkout is
    flags=()
    [ -f "$here/golden/$name.flags" ] && read -r -a flags <"$here/golden/$name.flags"
    out="$tmp/$name"
    if ! (cd "$here/fixtures" && "$bin" "$log" -o "$out" --no-browser "${flags[@]}") 2>"$tmp/$name.stderr"; then
        echo "FAIL $name: tlparse exited non-zero: $(cat "$tmp/$name.stderr")"
        fail=$((fail + 1))
        continue
    fi
    if ! cmp -s "$here/fixtures/$log" "$out/raw.log"; then
        echo "FAIL $name: raw.log is not a copy of the input"
        fail=$((fail + 1))
    fi
    rm -f "$out/raw.log"
    cp "$tmp/$name.stderr" "$out/.stderr"
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        rm -rf "$want"
        cp -r "$out" "$want"
        echo "updated $name"
        pass=$((pass + 1))
    elif diff -r "$want" "$out" >"$tmp/diff" 2>&1; then
        pass=$((pass + 1))
    else
        echo "FAIL $name: output differs from tests/golden/$name (UPDATE_GOLDEN=1 to accept):"
        head -40 "$tmp/diff"
        fail=$((fail + 1))
    fi
done
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
