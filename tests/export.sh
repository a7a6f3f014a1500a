#!/usr/bin/env bash
# Export mode (-e/--export, spec modes.md §2): the exact files, pages and links it writes for a
# trace of our own that holds every kind of export record (current and older names, fields
# missing or of the wrong type, hostile text), and for the corpus's two export logs when
# ../shared is beside this checkout (those also run in tests/conformance.sh).
# Usage: tests/export.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared, need_python3; counts checks (ok, bad, run, has, hasnt)
bin=$(realpath "$1")
need_python3 export
show_file=0 # a failed has names the file only
# not new_tmp: EXPORT_KEEP=1 keeps the folder
tmp=$(mktemp -d)
trap '[ -n "${EXPORT_KEEP:-}" ] || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
count() { # count FILE TEXT N: TEXT occurs N times
    local n
    n=$(grep -oF -- "$2" "$1" | wc -l)
    if [ "$n" = "$3" ]; then ok; else bad "$1 has '$2' $n times, want $3"; fi
}
files() { # files DIR LIST: the folder holds exactly these files (sorted, one per line)
    local got
    got=$(cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
    if [ "$got" = "$2" ]; then ok; else bad "files of $1:"$'\n'"$got"$'\n'"want:"$'\n'"$2"; fi
}

# A trace of our own: a string table, expressions, an unbacked symbol, one record of each
# problem kind (the older propagate_real_tensors name too), a guard_added that is not an
# evaluation, a guard_added_fast, fields missing or of the wrong type, markup in the text,
# and the exported program (with its payload's md5).
python3 - <<'PY'
import hashlib, json
P = "V0318 16:58:12.092000 3104603 torch/_logging/_internal.py:1305] "
lines = []
def entry(env, payload=None):
    if payload is not None:
        env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    lines.append(P + json.dumps(env))
    if payload is not None:
        lines.extend("\t" + l for l in payload.split("\n"))
user = [{"line": 7, "name": "forward", "filename": 0, "loc": "return x[:n]"}]
entry({"str": ["/w/model.py", 0]})
entry({"create_unbacked_symbol": {"symbol": "u0", "node_id": 1, "vr": "[-int_oo, int_oo]",
                                  "user_stack": user, "stack": []}})
entry({"expression_created": {"method": "neg", "result": "-u0", "result_id": 2,
                              "arguments": ["u0"], "argument_ids": [1], "user_stack": user,
                              "stack": []}})
entry({"expression_created": {"method": "eq", "result": "Eq(-u0, 5)", "result_id": 3,
                              "arguments": ["-u0", "5"], "argument_ids": [2, 99, 3],
                              "user_stack": user, "stack": []}})
entry({"propagate_real_tensors_provenance": {
    "expr": "Eq(-u0, 5)", "result": "False", "expr_node_id": 3, "user_stack": user,
    "stack": [], "symbol_to_sources": {},
    "frame_locals": {"locals": {"x": "Tensor(<b>)", "gone": None}, "symbols": {"s0": "L['x']"}}}})
entry({"guard_added": {"expr": "Eq(s0, 3)", "prefix": "eval", "expr_node_id": 4,
                       "user_stack": user, "stack": []}})
entry({"guard_added": {"expr": "s0 > 1", "user_stack": user, "stack": []}})
entry({"guard_added_fast": {"expr": "s1 < 9", "user_stack": user, "stack": []}})
entry({"propagate_real_tensors": {"expr": "u1 > 0 <script>alert(1)</script>", "result": "True",
                                  "stack": [{"line": 3, "name": "f", "filename": 0}]}})
entry({"propagate_real_tensors": {"expr": 5, "result": ["no"], "stack": "x"}})
entry({"missing_fake_kernel": {"op": "mylib.foo.default", "reason": "unused"}})
entry({"mismatched_fake_kernel": {"op": "mylib.bar.default", "reason": "shape <1> != <2>"}})
entry({"missing_fake_kernel": {}})
entry({"guard_added": {"prefix": "eval"}})
entry({"exported_program": {}}, "ExportedProgram:\n    class GraphModule(torch.nn.Module):")
open("mine.log", "w").write("\n".join(lines) + "\n")
PY

run 0 mine.log --export -o out --no-browser
files out "-_-_-_-/exported_program_5.txt
-_-_-_-/symbolic_guard_information_0.html
-_-_-_-/symbolic_guard_information_1.html
-_-_-_-/symbolic_guard_information_2.html
-_-_-_-/symbolic_guard_information_3.html
-_-_-_-/symbolic_guard_information_4.html
index.html
summary.json"
ix=out/index.html
has $ix '<title>Export report</title>'
has $ix '<h2>Draft Export Report</h2>'
has $ix '<strong>8 issues</strong> were found during export, so no sound graph could be produced. Each issue and its remedy are listed below.</p>'
# the problems in log order, each with its link or doc
count $ix '<td>Data Dependent Error</td>' 3
count $ix '<td>Guard Evaluated</td>' 2
count $ix '<td>Missing Fake Kernel</td>' 2
count $ix '<td>Mismatched Fake Kernel</td>' 1
has $ix "<a href='-_-_-_-/symbolic_guard_information_0.html'>here</a>"
has $ix 'href="-_-_-_-/exported_program_5.txt">link</a>'
has $ix '<code>torch.ops.mylib.foo.default</code> has no fake kernel'
has $ix 'shape &lt;1&gt; != &lt;2&gt;'
has $ix 'u1 &gt; 0 &lt;script&gt;alert(1)&lt;/script&gt;'
hasnt $ix '<script>alert(1)'
has $ix '(not in the log)'
# the guards export added (ours; the reference lists none)
has $ix 'Guards and specializations export added'
has $ix '<code>s0 &gt; 1</code>'
has $ix '<code>s1 &lt; 9</code>'
# the data-dependent page: expression, locals, the tree (u0 via -u0; 99 is unknown, 3 is a cycle)
g=out/-_-_-_-/symbolic_guard_information_0.html
has $g '<base href="..">'
has $g '<title>Symbolic Shapes Information</title>'
has $g 'Eq(-u0, 5)'
has $g '    x: Tensor(&lt;b&gt;)'
hasnt $g 'gone:'
has $g "    s0: L['x']"
count $g "<div class='node'" 3
has $g "<div class='node' style='margin-left: 40px'>"
has $g '<details open><summary>User Stack</summary>'
# the guard with a node id nobody made, and the older record without one
has out/-_-_-_-/symbolic_guard_information_1.html 'Eq(s0, 3)'
count out/-_-_-_-/symbolic_guard_information_1.html "<div class='node'" 0
has out/-_-_-_-/symbolic_guard_information_2.html 'older PyTorch versions do not log it'
cmp -s out/-_-_-_-/exported_program_5.txt <(printf 'ExportedProgram:\n    class GraphModule(torch.nn.Module):') && ok || bad "exported_program_5.txt is not the payload"
# the diagnosis knows what blocked export
kinds=$(python3 -c 'import json; print(" ".join(e["kind"] for e in json.load(open("out/summary.json"))["export"]))')
[ "$kinds" = "data_dependent guard_evaluated data_dependent data_dependent missing_fake_kernel mismatched_fake_kernel missing_fake_kernel guard_evaluated" ] && ok || bad "summary.json export kinds: $kinds"

# --strict does not apply in export mode (the reference's rule; the compile report has it)
run 0 mine.log --export --strict --strict-compile-id -o out2 --no-browser
# a trace without export records: congratulations, an empty link, and no compile report
cat >plain.log <<'LOG'
V0318 16:58:12.092000 3104603 torch/_logging/structured.py:27] {"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}
LOG
run 0 plain.log -e -o out3 --no-browser
files out3 "index.html
summary.json"
has out3/index.html 'No issues were found while exporting'
has out3/index.html 'href="">link</a>'
# export traces are one process's: not with the multi-rank modes
mkdir ranks && cp mine.log ranks/dedicated_log_torch_trace_rank_0.log
run 2 ranks --all-ranks-html --export -o out4 --no-browser
has err.txt 'cannot use --export with a multi-rank run'

# The corpus's export logs (spec §2.3 "Expected"), when ../shared is here.
if [ -f "$shared/corpus/logs/export.log" ]; then
    run 0 "$shared/corpus/logs/export.log" --strict --export -o e1 --no-browser
    files e1 "-_-_-_-/exported_program_1.txt
-_-_-_-/symbolic_guard_information_0.html
index.html
summary.json"
    has e1/index.html '<strong>1 issue</strong> was found during export, so no sound graph could be produced. The issue and its remedy are listed below.</p>'
    has e1/index.html 'Eq((((-u0)//3)) + 5, 0)'
    has e1/index.html "<a href='-_-_-_-/symbolic_guard_information_0.html'>here</a>"
    has e1/index.html 'href="-_-_-_-/exported_program_1.txt">link</a>'
    count e1/-_-_-_-/symbolic_guard_information_0.html "<div class='node'" 9
    run 0 "$shared/corpus/logs/export_guard_added.log" --strict --export -o e2 --no-browser
    files e2 "-_-_-_-/exported_program_1.txt
-_-_-_-/symbolic_guard_information_0.html
index.html
summary.json"
    has e2/index.html '<td>Guard Evaluated</td>'
    has e2/index.html 'Eq(s0, 3)'
    count e2/-_-_-_-/symbolic_guard_information_0.html "<div class='node'" 1
else
    echo "export: ../shared absent: its two export logs are not checked (ours are)"
fi

summary_line export
