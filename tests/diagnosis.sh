#!/usr/bin/env bash
# The diagnosis: `tlparse --json` on every TORCH_LOGS text log of ../shared/corpus/torch_logs,
# on the traces of ../shared/corpus/logs that show failures, graph breaks, caches and
# recompiles, and on our own fixtures, must give the shape of tlparse-summary/1 and exactly
# the findings of tests/diagnosis_expected.py (see tests/diagnosis_check.py); PyTorch 2.13's
# graph breaks and limit, exactly (tests/diag213_check.py). Then the three
# outputs of a text log end to end: --summary and --json write no report; a report folder of
# a text log holds index.html, log.html, summary.json and raw.log. Then what blocked
# torch.export, as text, HTML and JSON.
# Usage: tests/diagnosis.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared, need_python3, new_tmp, bad
bin=$(realpath "$1")
need_python3 diagnosis
python3 "$here/diagnosis_check.py" "$bin" "$shared" || fail=$((fail + 1))
# graph breaks and the recompile limit as PyTorch 2.13 logs them, trace and text
python3 "$here/diag213_check.py" "$bin" || fail=$((fail + 1))

new_tmp
cd "$tmp" || exit 1
# a TORCH_LOGS text log of our own: two ranks interleaved, a glued progress bar, a recompile
# limit and a graph break
cat >t.log <<'LOG'
[rank0]:V1120 14:09:51.149000 1018497 torch/_dynamo/guards.py:2997] [0/1] [__recompiles] Recompiling function fn in /w/m.py:3
[rank1]:V1120 14:09:51.149000 1018498 torch/_dynamo/guards.py:2997] [0/1] [__recompiles] Recompiling function fn in /w/m.py:3
[rank0]:V1120 14:09:51.149000 1018497 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     triggered by the following guard failure(s):
[rank1]:V1120 14:09:51.149000 1018498 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     triggered by the following guard failure(s):
[rank0]:V1120 14:09:51.149000 1018497 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     - 0/0: tensor 'L['x']' size mismatch at index 0. expected 4, actual 5
[rank1]:V1120 14:09:51.149000 1018498 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     - 0/0: tensor 'L['x']' size mismatch at index 0. expected 4, actual 6
100%|##########| 3/3 [00:01<00:00,  2.00it/s]V1120 14:09:52.000000 1018497 torch/_dynamo/symbolic_convert.py:611] [1/0] [__graph_breaks] Graph break in user code at /w/m.py:9
V1120 14:09:52.000000 1018497 torch/_dynamo/symbolic_convert.py:611] [1/0] [__graph_breaks] Graph Break Reason: Data-dependent jump
V1120 14:09:52.000000 1018497 torch/_dynamo/symbolic_convert.py:611] [1/0] [__graph_breaks] User code traceback:
V1120 14:09:52.000000 1018497 torch/_dynamo/symbolic_convert.py:611] [1/0] [__graph_breaks]   File "/w/m.py", line 9, in g
V1120 14:09:52.000000 1018497 torch/_dynamo/symbolic_convert.py:611] [1/0] [__graph_breaks]     if x.sum() > 0:
LOG
"$bin" t.log --summary >summary.txt 2>err.txt || bad "--summary exit $?"
[ ! -e tl_out ] || bad "--summary wrote a report"
grep -q "^tlparse diagnosis of t.log (torch_logs): 2 compile ids" summary.txt || bad "summary head: $(head -1 summary.txt)"
grep -q "RECOMPILES x2 in fn (defined at /w/m.py:3)" summary.txt || bad "summary: no recompiles x2: $(cat summary.txt)"
grep -q "GRAPH BREAK x1: Data-dependent jump" summary.txt || bad "summary: no graph break"
grep -q "at /w/m.py:9 in g: if x.sum() > 0:" summary.txt || bad "summary: graph break location"
! grep -q $'\033' summary.txt || bad "colour in a summary written to a file"
"$bin" t.log --json >s.json 2>err.txt || bad "--json exit $?"
python3 -c 'import json,sys; s=json.load(open("s.json")); assert s["source"]["kind"]=="torch_logs"; assert [r["count"] for r in s["recompiles"]]==[2]; assert s["recompiles"][0]["reasons"][0]["values"]==["expected 4, actual 5","expected 4, actual 6"], s["recompiles"][0]["reasons"]' ||
    bad "--json content"
"$bin" t.log -o rep --no-browser >out.txt 2>err.txt || bad "report exit $?: $(cat err.txt)"
for f in index.html log.html summary.json raw.log; do [ -s "rep/$f" ] || bad "rep/$f missing"; done
cmp -s t.log rep/raw.log || bad "raw.log is not the input"
grep -q 'TORCH_LOGS text: 11 lines, 3 messages, 0 lines not understood' err.txt || bad "stderr: $(cat err.txt)"
grep -q 'href="log.html#\[0/1\]"' rep/index.html || bad "index links the compile id to log.html"
grep -q 'href="log.html#L1"' rep/index.html || bad "index links the finding's log line"
grep -q '<div id="L7" data-cid="\[1/0\]">' rep/log.html || bad "log.html line 7 carries [1/0]"
grep -q '<a id="\[1/0\]"></a>' rep/log.html || bad "log.html anchors [1/0]"
grep -q "tensor &#39;L\[&#39;x&#39;\]&#39;\|tensor 'L\['x'\]'" rep/log.html || bad "log.html holds the escaped line"
# the same but for the command lines (-o rep, --json) in generated_by
same_json='import json, sys; s=json.load(open(sys.argv[1])); s["source"]["path"]=""; s["generated_by"]["command_line"]=""; print(json.dumps(s, sort_keys=True))'
cmp -s <(python3 -c "$same_json" rep/summary.json) <(python3 -c "$same_json" s.json) ||
    bad "summary.json of the report differs from --json"
python3 -c 'import json; g=json.load(open("rep/summary.json"))["generated_by"]; assert g["command_line"]=="tlparse t.log -o rep --no-browser" and g["input"]["path"]=="t.log", g' ||
    bad "summary.json: generated_by of the report"
# log text is escaped everywhere: markup in a guard, a reason, a path and a plain line
cat >h.log <<'LOG'
V1120 14:09:51.149000 1 torch/_dynamo/guards.py:2997] [0/1] [__recompiles] Recompiling function f<script>alert(1)</script> in /w/<img src=x onerror=alert(2)>.py:3
V1120 14:09:51.149000 1 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     triggered by the following guard failure(s):
V1120 14:09:51.149000 1 torch/_dynamo/guards.py:2997] [0/1] [__recompiles]     - 0/0: L['x<svg onload=alert(3)>'] == 1
Graph break in user code at /w/"><script>alert(4)</script>.py:9
Reason: Unsupported: <iframe src=javascript:alert(5)>
<script>alert(6)</script>
LOG
"$bin" h.log -o hrep --no-browser >/dev/null 2>&1 || bad "hostile text log: exit $?"
for f in hrep/index.html hrep/log.html; do
    if grep -qiE '<(script>alert|img src=x|svg onload|iframe src)' "$f"; then
        bad "$f holds unescaped log text: $(grep -oiE '.{20}<(script>alert|img src=x|svg onload|iframe src).{20}' "$f" | head -2)"
    fi
done
grep -q '&lt;script&gt;alert(6)&lt;/script&gt;' hrep/log.html || bad "log.html lost the escaped line"
grep -q 'f&lt;script&gt;alert(1)&lt;/script&gt;' hrep/index.html || bad "index.html lost the escaped function name"
# a backward failure naming an autograd seq_nr is traced to the forward node with that seq_nr
python3 - <<'PY'
import hashlib, json
P = "V1121 10:00:00.000000 1 torch/x.py:1] "
CID = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
def entry(env, payload=None):
    env = dict(env, **CID)
    if payload is not None:
        env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    out = P + json.dumps(env) + "\n"
    if payload is not None:
        out += "".join("\t" + l + "\n" for l in payload.split("\n"))
    return out
fw = """class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4]"):
         # File: /w/m.py:11 in fn, code: y = x * 2
        # seq_nr: 6
        mul: "f32[4]" = torch.ops.aten.mul.Tensor(primals_1, 2)
         # File: /w/m.py:12 in fn, code: z = y.sin()
        # seq_nr: 7
        sin: "f32[4]" = torch.ops.aten.sin.default(mul)
        return (sin, mul)"""
with open("bwd.log", "w") as f:
    f.write(entry({"aot_forward_graph": {}}, fw))
    f.write(entry({"bwd_compilation_metrics": {"fail_type": "RuntimeError",
        "fail_reason": "Function CosBackward0 (seq_nr=7) returned an invalid gradient"}}))
PY
"$bin" bwd.log --json >bwd.json 2>err.txt || bad "bwd.log: exit $?: $(cat err.txt)"
python3 -c 'import json; f=json.load(open("bwd.json"))["failures"]; assert len(f)==1 and f[0]["backward"] and f[0]["forward_node"]=="sin" and f[0]["forward_location"]=="/w/m.py:12", f' ||
    bad "the backward failure is not traced to the forward node sin at /w/m.py:12: $(grep -A12 failures bwd.json | head -14)"
# a trace of a function compiled as often as its dynamo_config allows: the limit was hit
python3 - <<'PY'
import json
P = "V1121 10:00:00.000000 1 torch/x.py:1] "
cfg = json.dumps({"cache_size_limit": 8, "accumulated_cache_size_limit": 256})
with open("limit.log", "w") as f:
    for k in range(8):
        m = {"co_name": "fn", "co_filename": "/w/p.py", "co_firstlineno": 3, "dynamo_config": cfg,
             "recompile_reason": "0/%d: L['c'] == %d.5" % (k - 1, k) if k else None}
        f.write(P + json.dumps({"compilation_metrics": m, "frame_id": 0, "frame_compile_id": k,
                                "attempt": 0}) + "\n")
PY
"$bin" limit.log --json >limit.json 2>err.txt || bad "limit.log: exit $?: $(cat err.txt)"
python3 -c '
import json
s = json.load(open("limit.json"))
l = s["limits_hit"]
assert len(l) == 1 and l[0]["function"] == "fn" and l[0]["limit"] == 8 and l[0]["limit_name"] == "cache_size_limit", l
assert l[0]["last_reason_advice"]["category"] == "constant_number", l
assert s["findings"][0]["kind"] == "limit", s["findings"]
r = s["recompiles"][0]
assert r["count"] == 7 and r["reasons"][0]["guard"] == "L['"'"'c'"'"'] == <value>", r' || bad "the limit hit in limit.log is not found: $(grep -A8 limits_hit limit.json | head -10)"
# what blocked torch.export, in the three forms: the text names the problem, its line and the
# fix; the report's Diagnosis escapes what the log says; --json fills the rule's placeholders
ex="$here/fixtures/export_kinds.log"
"$bin" "$ex" --summary >ex.txt 2>err.txt || bad "export_kinds.log --summary: exit $?"
grep -qF "  1. EXPORT BLOCKED x2: Data dependent error: u0 < 10 was specialized to True at /home/u/exp/model.py:14 in forward" ex.txt ||
    bad "export summary: no data dependent error first: $(head -4 ex.txt)"
grep -qF "     u0 comes from n = x.item() at /home/u/exp/model.py:10 in forward" ex.txt || bad "export summary: where u0 comes from"
grep -qF "EXPORT BLOCKED x2: Guard evaluated: Eq(s0, 4), that is Eq(L['x'].size()[0], 4), at /home/u/exp/model.py:8 in forward" ex.txt ||
    bad "export summary: the evaluated guard"
grep -qF 'EXPORT BLOCKED: Missing fake kernel: torch.ops.mylib.foo.default' ex.txt || bad "export summary: the missing fake kernel"
grep -qF '@torch.library.register_fake("mylib::foo")' ex.txt || bad "export summary: the fix names mylib::foo"
grep -qF '     | Shapes torch.Size([3]) and torch.Size([4]) are not equal!' ex.txt || bad "export summary: the mismatch's reason"
[ "$(grep -c 'EXPORT BLOCKED' ex.txt)" = 8 ] || bad "export summary: $(grep -c 'EXPORT BLOCKED' ex.txt) problems, want 8"
"$bin" "$ex" -o exrep --no-browser >/dev/null 2>&1 || bad "export_kinds.log report: exit $?"
grep -qiE '<img src=x' exrep/index.html && bad "exrep/index.html holds the unescaped kernel reason"
grep -qF 'are not equal! &lt;img src=x onerror=alert(1)&gt;</pre>' exrep/index.html || bad "exrep/index.html lost the escaped kernel reason"
grep -qF "<span class='label'>Export blocked</span> 2 &times; <strong>Guard evaluated</strong>" exrep/index.html ||
    bad "exrep/index.html: the evaluated guard"
python3 -c '
import json
s = json.load(open("exrep/summary.json"))
x = s["export"][4]
assert x["kind"] == "mismatched_fake_kernel" and "register_fake(\"mylib::bar\")" in x["advice"]["fix"], x
assert "torch.ops.mylib.bar.default" in x["advice"]["explanation"], x["advice"]
x = s["export"][0]
assert "specialized the graph to False" in x["advice"]["explanation"], x["advice"]
# the fix written with the names of the log: the condition on the variable that .item() made
# (n = x.item() made u0), the dimension of the evaluated guard
then = " If both outcomes occur, write the branch with torch.cond(pred, true_fn, false_fn)."
fix = {(x["kind"], x["expr"]): x["advice"]["fix"] for x in s["export"]}
assert fix[("data_dependent", "u0 < 10")] == "If the outcome is the same for every input, say so before that line: torch._check(n < 10)." + then, fix
assert fix[("data_dependent", "Eq(u0, 0)")] == "If the outcome is the same for every input, say so before that line: torch._check(n != 0)." + then, fix
assert "(a branch or an assert on x.shape[0], a hard-coded size" in fix[("guard_evaluated", "Eq(s0, 4)")], fix
assert "for Eq(a, 0)" not in str(fix) and "x.shape[i]" not in str(fix), fix' || bad "export_kinds summary.json: advice placeholders"
if [ -f "$shared/corpus/logs/export.log" ]; then
    "$bin" "$shared/corpus/logs/export.log" --summary >exl.txt 2>err.txt || bad "export.log --summary: exit $?"
    grep -qF "  1. EXPORT BLOCKED: Data dependent error: Eq((((-u0)//3)) + 5, 0) was specialized to False at /data/users/angelayi/pytorch/test/export/test_draft_export.py:279 in forward" exl.txt ||
        bad "export.log summary: $(head -4 exl.txt)"
    grep -qxF "     Fix: If the outcome is the same for every input, say so before that line: torch._check((((-a)//3)) + 5 != 0). If both outcomes occur, write the branch with torch.cond(pred, true_fn, false_fn)." exl.txt ||
        bad "export.log summary: the fix: $(grep 'Fix:' exl.txt)"
else
    echo "diagnosis: ../shared absent: the summary of its export.log is not checked (export_kinds.log's is)"
fi
# a recompile limit in the text summary: one "What:" of its own, then its last reason's advice
# labelled as such; without a last reason, no such line
"$bin" "$here/fixtures/torch_logs/pt26_item_warning_guard_comments.txt" --summary >lim.txt 2>err.txt ||
    bad "limit --summary: exit $?"
sed -n '/^  1\. RECOMPILE LIMIT/,/^$/p' lim.txt >lim1.txt
[ "$(grep -c 'What:' lim1.txt)" = 1 ] || bad "limit summary: not one What: line: $(cat lim1.txt)"
grep -q "^     Its last reason: A Python number is baked into the graph" lim1.txt ||
    bad "limit summary: its last reason's advice: $(cat lim1.txt)"
printf '%s\n' "torch._dynamo hit config.cache_size_limit (8)" "   function: 'f' (/w/a.py:1)" \
    "To log all recompilation reasons, use TORCH_LOGS=\"recompiles\"." >nolast.log
"$bin" nolast.log --summary >nolast.txt 2>err.txt || bad "limit without last reason: exit $?"
grep -q "RECOMPILE LIMIT cache_size_limit (8)" nolast.txt || bad "limit without reason: $(cat nolast.txt)"
! grep -q "Its last reason" nolast.txt || bad "limit without reason names one: $(cat nolast.txt)"
[ "$(grep -c 'What:' nolast.txt)" = 1 ] || bad "limit without reason: not one What: line: $(cat nolast.txt)"
# the overview of index.html counts the compile ids the diagnosis and the last line count: not
# [-/-] (rank 1 of multi_rank_logs: 15 compile ids, and a [-/-] that holds no file), and the
# [!3/-/-] of edge.log, which holds a file, is named apart
r1=$shared/corpus/logs/multi_rank_logs/dedicated_log_torch_trace_rank_1.log
if [ -f "$r1" ]; then
    "$bin" "$r1" -o r1 --no-browser 2>err.txt || bad "rank 1 report: exit $?"
    [ "$(tail -1 err.txt)" = "tlparse: r1/index.html: 15 compile ids, 0 graph breaks, 14 recompiles, 0 failures" ] ||
        bad "rank 1 report: last line $(tail -1 err.txt)"
    grep -qF "<p class='counts'><strong>15 compile ids</strong>: <span class='chip status-ok'>15 ok</span></p>" r1/index.html ||
        bad "rank 1 overview: $(grep -o "<p class='counts'>.*</p>" r1/index.html)"
    sed -n "/<section class='overview'/,/<\/section>/p" r1/index.html | grep -qF '[-/-]' && bad "rank 1 overview names [-/-]"
    "$bin" "$r1" --summary >r1.txt
    head -1 r1.txt | grep -q ": 15 compile ids, " || bad "rank 1 --summary: not 15 compile ids"
    # its 14 recompiles list 105 failures (each of every earlier compilation), all different:
    # the count says what it counts
    grep -qxF "     - tensor 'x' size mismatch at index 0  (14x: expected 2, actual 3; expected 3, actual 4; expected 2, actual 4; expected 4, actual 5; ... 105 distinct values in all: a recompile gives one for each earlier compilation that failed this guard)" r1.txt ||
        bad "rank 1 --summary: the guard's values: $(grep 'size mismatch' r1.txt)"
    grep -qF '"distinct_values": 105,' r1/summary.json || bad "rank 1 summary.json: no distinct_values 105"
    # the four ranks: 24 compile ids whether parsed or read from their summaries, and the
    # multi-rank summary.json counts each rank's as its own summary.json does
    "$bin" "$(dirname "$r1")" --all-ranks-html -o mr --no-browser 2>err.txt || bad "multi_rank_logs: exit $?"
    [ "$(tail -1 err.txt)" = "tlparse: mr/index.html: 4 ranks, 24 compile ids, 0 graph breaks, 20 recompiles, 2 failures" ] ||
        bad "multi_rank_logs: last line $(tail -1 err.txt)"
    python3 -c 'import json,sys; r = json.load(open("mr/summary.json"))["ranks"]; sys.exit([x["compile_ids"] for x in r] != [1, 15, 1, 7])' ||
        bad "multi_rank_logs summary.json: compile_ids $(grep -o '"compile_ids": [0-9]*' mr/summary.json | tr '\n' ' ')"
    "$bin" mr --all-ranks-html --from-summaries --overwrite --no-browser 2>err.txt || bad "--from-summaries: exit $?"
    [ "$(tail -1 err.txt)" = "tlparse: mr/index.html: 4 ranks, 24 compile ids, 0 graph breaks, 20 recompiles, 2 failures" ] ||
        bad "--from-summaries: last line $(tail -1 err.txt)"
fi
"$bin" "$here/fixtures/edge.log" -o edge --no-browser 2>err.txt || bad "edge.log report: exit $?"
[ "$(tail -1 err.txt)" = "tlparse: edge/index.html: 5 compile ids, 1 graph break, 0 recompiles, 1 failure" ] ||
    bad "edge.log report: last line $(tail -1 err.txt)"
grep -qF "<p class='counts'><strong>5 compile ids</strong>, analysed 6 times: " edge/index.html ||
    bad "edge.log overview: $(grep -o "<p class='counts'>.*</p>" edge/index.html)"
grep -qF "<p class='loose'>Outside any compilation (no compile id): <a href=\"#[!3/-/-]\">[!3/-/-]</a> with 1 file</p>" edge/index.html ||
    bad "edge.log overview: [!3/-/-] not named apart"
# PyTorch 2.13's wording (issue 36): the advice of each finding, exactly, for a branch on a
# dynamic size, an even size, a number made dynamic, guards with their comments and "User stack
# trace:", paths cut short, and a limit whose cause is the log's automatic_dynamic_shapes=False
"$bin" "$here/fixtures/torch_logs/pt213_text_guards.txt" --json >g213.json 2>err.txt || bad "pt213 text --json: exit $?"
"$bin" "$here/fixtures/pt213_trace_limit.log" --json >l213.json 2>err.txt || bad "pt213 trace --json: exit $?"
"$bin" "$here/fixtures/pt213_trace_limit.log" --summary >l213.txt 2>err.txt || bad "pt213 trace --summary: exit $?"
python3 -c '
import json
g = json.load(open("g213.json"))
r = g["recompiles"][0]
assert r["reasons"][0]["example"] == "2 <= x.size()[0] <= 8", r["reasons"]
assert [x["guard"] for x in r["reasons"]] == ["2 <= x.size()[0] <= 8"], r["reasons"]
a = r["advice"]
assert a["category"] == "size_branch", a
assert a["explanation"] == ("The dimension is dynamic, but the code branches on its size (an `if` on "
    "x.shape[0], a comparison with a constant): the compiled code holds only for the sizes on the side "
    "of the branch it saw (2 <= x.size()[0] <= 8), so the first size on the other side compiles the "
    "function once more, and later sizes reuse one of the graphs."), a
assert a["fix"].endswith("Marking the dimension dynamic does not help: it is dynamic already."), a
specs = {x["expr"]: x for x in g["specializations"]}
assert sorted(specs) == ["Eq(s77, 2*((s77//2)))", "Ne((s77//2), 1)", "s77 <= 8", "s77 > 8"], sorted(specs)
assert specs["s77 <= 8"]["advice"]["category"] == "size_branch"
assert specs["s77 <= 8"]["location"] == "/home/ana/w/route.py:8", specs["s77 <= 8"]["location"]
assert specs["Eq(s77, 2*((s77//2)))"]["advice"]["category"] == "divisibility_guard"
n = g["recompiles"][1]
assert n["reasons"][0]["example"] == "n == 1" and n["advice"]["category"] == "automatic_dynamic", n
assert n["advice"]["title"] == "A Python number changed once, and became dynamic", n["advice"]
assert n["advice"]["explanation"] == ("This is automatic dynamic shapes at work: the code was "
    "compiled for one value (n == 1); the first call with another value compiles the function once "
    "more, with the number as a symbolic input, and later values reuse that code."), n["advice"]
assert [f["normal"] for f in g["findings"]] == [False, False, False, True, True, True], g["findings"]
l = json.load(open("l213.json"))
lim = l["limits_hit"][0]
assert lim["limit_name"] == "recompile_limit" and lim["last_reason"] == "k == 1", lim
assert lim["advice"]["fix"] == ("Remove the line that sets "
    "torch._dynamo.config.automatic_dynamic_shapes = False (or mark the changing dimension dynamic "
    "with torch._dynamo.mark_dynamic); then one compilation serves every value. Raise "
    "torch._dynamo.config.recompile_limit instead only if the values are a small known set and "
    "each needs its own compiled code."), lim["advice"]
assert "raising" not in lim["advice"]["fix"] and "only hides" not in lim["advice"]["fix"], lim
k = l["recompiles"][0]["reasons"][0]
assert k["example"] == "k == 0" and k["values"] == ["0", "1"], k
assert "(k == 0)" in k["advice"]["explanation"] and "#" not in k["advice"]["explanation"], k
' || bad "PyTorch 2.13 wording: the advice"
grep -qxF "     Its last reason: A Python number is baked into the graph as a constant (its recompiles below say what to do)." l213.txt ||
    bad "pt213 limit summary repeats its recompile's advice: $(cat l213.txt)"
[ "$(grep -c 'Pass it as a tensor' l213.txt)" = 1 ] || bad "pt213 limit summary: the number's fix twice"
# a float made dynamic by its one recompile: 2.13's compile(dynamic=True) would have made it
# dynamic from the first call, 2.6's does not (a log without a version is taken as the older)
"$bin" "$here/fixtures/pt213_trace_float.log" --json >f213.json 2>err.txt || bad "pt213 float --json: exit $?"
sed 's/"2.13.0+cpu"/"2.6.0"/' "$here/fixtures/pt213_trace_float.log" >f26.log
"$bin" f26.log --json >f26.json 2>err.txt || bad "2.6 float --json: exit $?"
python3 -c '
import json
new = json.load(open("f213.json"))["recompiles"][0]["advice"]
old = json.load(open("f26.json"))["recompiles"][0]["advice"]
assert new["category"] == old["category"] == "automatic_dynamic", (new, old)
assert new["fix"] == ("Nothing to do. To skip even this one recompile, pass the number as a 0-d "
    "tensor, or compile with dynamic=True so that numbers and sizes are dynamic from the first call."), new
assert old["fix"] == ("Nothing to do. To skip even this one recompile, pass the float as a 0-d "
    "tensor. compile(dynamic=True) makes a float dynamic from the first call in recent PyTorch "
    "(2.13), not in 2.6."), old
assert "(alpha == 0.25)" in new["explanation"], new
' || bad "a float made dynamic: the advice by version"
# the setting's name in the PyTorch that wrote the log: 2.6 calls it cache_size_limit; a trace
# that gives only its version (a limit's failure without the setting's name)
sed -e 's/"2.13.0+cpu"/"2.6.0"/' -e 's/\\"recompile_limit\\": 3, //' "$here/fixtures/pt213_trace_limit.log" >l26.log
printf '%s\n' 'V1127 10:00:30.000000 4000 torch/_logging/structured.py:30] {"frame_id": 0, "frame_compile_id": 3, "attempt": 0, "compilation_metrics": {"compile_id": "0/3", "co_name": "bump", "co_filename": "/home/ana/w/bump.py", "co_firstlineno": 9, "fail_type": "CacheLimitExceeded", "fail_reason": "too many recompiles"}}' >>l26.log
"$bin" l26.log --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
lim = s["limits_hit"][0]
assert lim["limit_name"] == "cache_size_limit", lim
assert "torch._dynamo.config.cache_size_limit" in lim["advice"]["fix"], lim["advice"]
' || bad "a 2.6 trace: the limit setting is not cache_size_limit"
# --summary of a report folder reads its summary.json: the same findings, in the same words,
# as --summary of the log it was made from (all but the first line, which says where it was
# read); --json prints the summary.json as stored. Every fixture and corpus log.
stored=0
for log in "$here"/fixtures/*.log "$here"/fixtures/torch_logs/* "$here"/fixtures/export_kinds.log:e \
    "$shared"/corpus/logs/*.log "$shared"/corpus/logs/*/*.log "$shared"/corpus/torch_logs/* \
    "$shared"/corpus/logs/export.log:e "$shared"/corpus/logs/export_guard_added.log:e; do
    flags=()
    case $log in *:e) log=${log%:e} && flags=(--export) ;; esac
    [ -f "$log" ] || continue
    rm -rf stored
    "$bin" "$log" "${flags[@]}" -o stored --no-browser >/dev/null 2>&1 || { bad "$log: no report"; continue; }
    "$bin" "$log" "${flags[@]}" --summary 2>/dev/null | tail -n +2 >from_log.txt
    "$bin" stored --summary >from_report.txt 2>err.txt || bad "$log: --summary of its report: exit $?"
    [ -s err.txt ] && bad "$log: --summary of its report said $(cat err.txt)"
    head -1 from_report.txt | grep -qF "tlparse diagnosis of $log, from its report stored (" ||
        bad "$log: --summary of its report: $(head -1 from_report.txt)"
    tail -n +2 from_report.txt | cmp -s - from_log.txt ||
        bad "$log: --summary of its report differs: $(tail -n +2 from_report.txt | diff - from_log.txt | head -5)"
    "$bin" stored/ --json >json.txt 2>err.txt || bad "$log: --json of its report: exit $?"
    cmp -s json.txt stored/summary.json || bad "$log: --json of its report is not its summary.json"
    stored=$((stored + 1))
done
[ "$stored" -ge 9 ] || bad "--summary of a report: only $stored logs compared"
[ "$fail" = 0 ] || exit 1
echo "diagnosis: text log end to end, and $stored reports read back by --summary and --json: ok"
