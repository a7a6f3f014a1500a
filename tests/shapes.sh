#!/usr/bin/env bash
# Dynamic-shape provenance on a trace of our own (tests/fixtures/shapes.log, rank 3): the
# symbols create_symbol made (source, size, range, the user's line), each guard and
# specialization with the symbols it involves, the divisibility guard named as such, every
# finding with its rank; dynamic_shapes.html written, escaped, and linked from the index and
# from the compile id's listing. Then a TORCH_LOGS text of two ranks: findings name them.
# Usage: tests/shapes.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, need_python3, new_tmp, bad
bin=$(realpath "$1")
need_python3 shapes
new_tmp

"$bin" "$here/fixtures/shapes.log" --json >"$tmp/s.json" 2>"$tmp/err" || bad "--json exit $?"
grep -q "Unknown fields" "$tmp/err" && bad "create_symbol is an unknown field: $(cat "$tmp/err")"
python3 - "$tmp/s.json" <<'PY' || fail=$((fail + 1))
import json, sys
s = json.load(open(sys.argv[1]))
got = {
    "dynamic": [(x["symbol"], x["source"], x["value"], x["range"], x["location"], x["compile_id"])
                for x in s["dynamic_dimensions"]],
    "specs": [(x["kind"], x["expr"], [(y["symbol"], y["source"]) for y in x["symbols"]],
               x["location"], x["advice"]["category"], x["ranks"]) for x in s["specializations"]],
}
want = {
    "dynamic": [("s0", "L['x'].size()[0]", "10", "[2, int_oo]", "/home/u/shapes.py:8", "[0/0]"),
                ("s1", "L['y'].size()[1]", "4", "[2, int_oo]", "/home/u/shapes.py:9", "[0/0]")],
    "specs": [("guard", "2*s0 >= 16", [("s0", "L['x'].size()[0]")], "/home/u/shapes.py:8",
               "shape_guard", [3]),
              ("guard", "Eq(Mod(s0, 2), 0)", [("s0", "L['x'].size()[0]")], "/home/u/shapes.py:9",
               "divisibility_guard", [3]),
              ("specialized", "Eq(s1, 4)", [("s1", "L['y'].size()[1]")], "/home/u/shapes.py:10",
               "dimension_specialized", [3])],
}
got = json.loads(json.dumps(got))
want = json.loads(json.dumps(want))
for k in want:
    if got[k] != want[k]:
        print("FAIL: shapes.log %s:\n  want %s\n  got  %s" % (k, want[k], got[k]))
        sys.exit(1)
PY

out="$tmp/report"
"$bin" "$here/fixtures/shapes.log" -o "$out" --no-browser >/dev/null 2>&1 || bad "report exit $?"
page="$out/dynamic_shapes.html"
[ -s "$page" ] || bad "no dynamic_shapes.html"
grep -q '<h2 id="\[0/0\]"><a href="index.html#\[0/0\]">\[0/0\]</a></h2>' "$page" || bad "page: no section for [0/0]"
grep -qF "<td><code>s0</code></td><td><code>L['x'].size()[0]</code></td><td>10</td>" "$page" ||
    bad "page: no row for s0: $(grep -o '<tr>.*s0.*</tr>' "$page" | head -2)"
grep -q "Eq(Mod(s0, 2), 0)" "$page" || bad "page: no divisibility guard"
grep -q "A dynamic size must divide evenly" "$page" || bad "page: the divisibility guard is not named"
grep -q 'href="dynamic_shapes.html"' "$out/index.html" || bad "index: no link to dynamic_shapes.html"
grep -q 'href="dynamic_shapes.html#\[0/0\]">dynamic shapes</a> (5 symbols and guards)' "$out/index.html" ||
    bad "index: [0/0] does not link its dynamic shapes"

# no symbol and no shape guard: no page, no link
grep -v -e create_symbol -e guard_added_fast "$here/fixtures/shapes.log" >"$tmp/plain.log"
"$bin" "$tmp/plain.log" -o "$tmp/plain" --no-browser >/dev/null 2>&1 || bad "plain: exit $?"
[ -e "$tmp/plain/index.html" ] || bad "plain: no report"
[ -e "$tmp/plain/dynamic_shapes.html" ] && bad "plain: dynamic_shapes.html without symbols or guards"
grep -q 'dynamic_shapes.html' "$tmp/plain/index.html" && bad "plain: index links a page it lacks"

# a log's text from PyTorch's own hand is escaped on the page
sed -e "s/L\['y'\].size()\[1\]/<script>alert(1)<\/script>/" "$here/fixtures/shapes.log" >"$tmp/evil.log"
"$bin" "$tmp/evil.log" -o "$tmp/evil" --no-browser >/dev/null 2>&1 || bad "evil: exit $?"
grep -q '<script>alert' "$tmp/evil/dynamic_shapes.html" && bad "evil: a source is not escaped"

# a TORCH_LOGS text (dynamic): the same table, page and links
cat >"$tmp/dyn.log" <<'LOG'
I1125 10:00:00.000000 7 torch/fx/experimental/symbolic_shapes.py:4423] [0/0] create_symbol s0 = 10 for L['x'].size()[0] [2, int_oo] if x.shape[0] * 2 >= 16:  # m.py:8 in halves (_dynamo/variables/builder.py:2861 in <lambda>)
I1125 10:00:00.100000 7 torch/fx/experimental/symbolic_shapes.py:6281] [0/0] eval Eq(Mod(s0, 2), 0) [guard added] a, b = x.view(2, -1)  # m.py:9 in halves (_prims_common/__init__.py:939 in infer_size)
LOG
"$bin" "$tmp/dyn.log" -o "$tmp/dyn" --no-browser >/dev/null 2>&1 || bad "text: exit $?"
python3 - "$tmp/dyn/summary.json" <<'PY' || fail=$((fail + 1))
import json, sys
s = json.load(open(sys.argv[1]))
d = [(x["symbol"], x["source"], x["value"], x["range"]) for x in s["dynamic_dimensions"]]
g = [(x["expr"], [(y["symbol"], y["source"]) for y in x["symbols"]], x["advice"]["category"])
     for x in s["specializations"]]
if d != [["s0", "L['x'].size()[0]", "10", "[2, int_oo]"]] and d != [("s0", "L['x'].size()[0]", "10", "[2, int_oo]")]:
    print("FAIL: text dynamic_dimensions %s" % d); sys.exit(1)
if g != [("Eq(Mod(s0, 2), 0)", [("s0", "L['x'].size()[0]")], "divisibility_guard")]:
    print("FAIL: text specializations %s" % g); sys.exit(1)
PY
grep -q 'Eq(Mod(s0, 2), 0)' "$tmp/dyn/dynamic_shapes.html" || bad "text: no dynamic_shapes.html with the guard"
grep -q 'href="dynamic_shapes.html#\[0/0\]">dynamic shapes</a> (2)' "$tmp/dyn/index.html" ||
    bad "text: [0/0] does not link its dynamic shapes"

# the diff names a specialization by what it specialized, whatever its symbol's number
sed -e 's/s1/s7/g' -e 's/"rank": 3, //' "$here/fixtures/shapes.log" >"$tmp/renumbered.log"
"$bin" diff "$here/fixtures/shapes.log" "$tmp/renumbered.log" --summary >"$tmp/d1.txt" 2>/dev/null ||
    bad "diff renumbered exit $?"
grep -q "^no change in graph breaks, recompiles, specializations or failures" "$tmp/d1.txt" ||
    bad "diff: a renumbered symbol is a change: $(cat "$tmp/d1.txt")"
grep -v 'Eq(s1' "$here/fixtures/shapes.log" >"$tmp/unspecialized.log"
"$bin" diff "$here/fixtures/shapes.log" "$tmp/unspecialized.log" --summary >"$tmp/d2.txt" 2>/dev/null ||
    bad "diff unspecialized exit $?"
grep -qF "FIXED    halves at /home/u/shapes.py:10: specialized: Eq(L['y'].size()[1], 4) (1 -> 0)" "$tmp/d2.txt" ||
    bad "diff: the specialization fixed is not named by its source: $(cat "$tmp/d2.txt")"

# a TORCH_LOGS text of two ranks: each finding says on which
cat >"$tmp/ranks.log" <<'LOG'
[rank0]:V1120 14:09:51.149000 1018497 torch/_dynamo/guards.py:2997] [0/1] [__recompiles] Recompiling function fn in /w/m.py:3
[rank0]:V1120 14:09:51.149000 1018497 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     triggered by the following guard failure(s):
[rank0]:V1120 14:09:51.149000 1018497 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     - 0/0: tensor 'L['x']' size mismatch at index 0. expected 4, actual 5
[rank2]:V1120 14:09:51.149000 1018498 torch/_dynamo/guards.py:2997] [0/1] [__recompiles] Recompiling function fn in /w/m.py:3
[rank2]:V1120 14:09:51.149000 1018498 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     triggered by the following guard failure(s):
[rank2]:V1120 14:09:51.149000 1018498 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     - 0/0: tensor 'L['x']' size mismatch at index 0. expected 4, actual 6
LOG
"$bin" "$tmp/ranks.log" --json >"$tmp/r.json" 2>/dev/null || bad "ranks --json exit $?"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
r = [x["ranks"] for x in s["recompiles"]]
if r != [[0, 2]]:
    print("FAIL: ranks.log: recompiles ranks %s, want [[0, 2]]" % r); sys.exit(1)' "$tmp/r.json" || fail=$((fail + 1))
"$bin" "$tmp/ranks.log" --summary >"$tmp/r.txt" 2>/dev/null
grep -q '^  1\. \[ranks 0, 2\] RECOMPILES x2 ' "$tmp/r.txt" || bad "ranks.log --summary: $(grep RECOMPILES "$tmp/r.txt")"

[ "$fail" = 0 ] || exit 1
echo "shapes: ok"
