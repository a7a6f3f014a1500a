#!/usr/bin/env bash
# Golden output trees: for every tests/fixtures/NAME.log with a folder tests/golden/NAME,
# run tlparse (with the flags in tests/golden/NAME.flags, if any) and compare the whole
# output tree with the folder, byte for byte (raw.log is compared with the input instead).
# UPDATE_GOLDEN=1 rewrites the folders from the current binary.
# What says how a report was made is made the same on every machine and at every commit: the
# log is a copy with a fixed modification time, tlparse runs from the copy's folder with
# relative paths (so the command line is "tlparse NAME.log -o NAME --no-browser"), and the
# source revision and the version (from tlparse --version) are replaced by @REVISION@ and
# @VERSION@ in index.html and summary.json before comparing, so that a version bump (the file
# VERSION) leaves the golden trees as they are.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, new_tmp; pass, fail and summary_line
bin=$(realpath "$1")
new_tmp
export TLPARSE_YEAR=2026 # raw.jsonl timestamps carry the year of the run
rev=$("$bin" --version | sed -n 's/^tlparse [^ ]* (revision \(.*\))$/\1/p')
ver=$("$bin" --version | sed -n 's/^tlparse \([^ ]*\).*/\1/p')
mkdir "$tmp/work"
for want in "$here"/golden/*/; do
    name=$(basename "$want")
    log="$name.log" # relative, so messages do not depend on where the checkout is
    flags=()
    [ -f "$here/golden/$name.flags" ] && read -r -a flags <"$here/golden/$name.flags"
    out="$tmp/work/$name"
    cp "$here/fixtures/$log" "$tmp/work/$log"
    touch -d @1700000000 "$tmp/work/$log"
    if ! (cd "$tmp/work" && "$bin" "$log" -o "$name" --no-browser "${flags[@]}") 2>"$tmp/$name.stderr"; then
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
    # (a vLLM log's classic index is tlparse_index.html, its footer the same)
    python3 - "$rev" "$ver" "$out/index.html" "$out/summary.json" "$out/tlparse_index.html" <<'PY'
import os
import sys
rev, ver = sys.argv[1].encode(), sys.argv[2].encode()
for path in sys.argv[3:]:
    if not os.path.exists(path):
        continue
    with open(path, "rb") as f:
        data = f.read()
    # the index's footer and summary.json's generated_by
    data = data.replace(b"<p>tlparse " + ver + b" ", b"<p>tlparse @VERSION@ ")
    data = data.replace(b'"version": "' + ver + b'"', b'"version": "@VERSION@"')
    if rev:
        data = data.replace(rev, b"@REVISION@")
    else:  # a build without a revision (no .git, no REVISION file) says none: say it as one
        data = data.replace(b"<p>tlparse @VERSION@ \xc2\xb7 ",
                            b"<p>tlparse @VERSION@ (revision <code>@REVISION@</code>) \xc2\xb7 ")
        data = data.replace(b'"revision": null', b'"revision": "@REVISION@"')
    with open(path, "wb") as f:
        f.write(data)
PY
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
summary_line golden && [ "$pass" -gt 0 ]
