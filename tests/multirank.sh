#!/usr/bin/env bash
# Multi-rank runs (--all-ranks-html, --rank-only, --from-summaries), end to end, on rank logs
# of our own written by tests/make_rank_logs.py (no ../shared needed):
#   - 16 ranks that diverge (one compiles less, one more, one issues other collectives, one
#     hits the cache, one never waits for its collectives), one an empty log, one a broken
#     gzip stream and one holding malformed runtime and schedule artifacts: -j 1, -j 2 and the
#     two-step path (--rank-only per rank as separate processes, then --from-summaries) give
#     byte-identical folders, the broken and malformed ranks are reported, not fatal, and the
#     landing page and summary.json (tlparse-ranks/1) say exactly how the ranks diverge;
#   - ranks that agree (no warning) and a slow rank (the graph runtime analysis);
#   - the landing page's lead (the verdict naming the first graph and op where ranks part, the
#     table, then the details and a footer), compile ids in numeric order and no [-/-] among
#     them; the run's last line counting the ranks read and not read;
#   - messages on crafted inputs; the command-line rules of spec modes.md §1.1 and ours;
#   - the string table carried from rank to rank in listing or name order.
# When ../shared (or $TL_SHARED) is there, the corpus's multi-rank logs also go through -j 1,
# -j 2 and both orders; when it is absent that part is said in one line and the rest runs.
# Usage: tests/multirank.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared, need_python3, new_tmp, bad (its entry is its own, below)
bin=$(realpath "$1")
shared=$(realpath -m "$shared")
need_python3 multirank
new_tmp
cd "$tmp" || exit 1
gen() { python3 "$here/make_rank_logs.py" "$@" || bad "make_rank_logs.py $*: exit $?"; }

# An entry of a trace with a correct md5: entry LINE_JSON PAYLOAD (not lib.sh's entry: it adds
# has_payload itself, and its glog prefix is another)
entry() {
    python3 - "$1" "$2" <<'PY'
import hashlib, json, sys
env = json.loads(sys.argv[1]); payload = sys.argv[2]
env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
print("V0804 12:34:15.353000 1142857 torch/_inductor/debug.py:700] " + json.dumps(env))
for line in payload.split("\n"):
    print("\t" + line)
PY
}

# ---- 16 ranks ---------------------------------------------------------------------------
# rank 5 compiles [0/0] only, rank 9 also compiles helper ([1/0]), rank 11 all-gathers where
# the others all-reduce, rank 7's [0/0] is a cache hit, rank 15's code never waits
gen ranks --ranks 16 --pad-kb 32 --short 5 --extra 9 --gather 11 --hit 7 --no-wait 15
: >ranks/dedicated_log_torch_trace_rank_12.log
# rank 13: binary bytes where its log should be (a log cut short is read up to the cut: it
# has a report; this one cannot have one)
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x08\x02\x00\x90\x91h6' \
    >ranks/dedicated_log_torch_trace_rank_13.log
# rank 14: malformed runtime and schedule artifacts (the reference aborts on both)
{
    entry '{"artifact": {"name": "inductor_runtime_and_tensor_meta", "encoding": "json"}, "rank": 14, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}' \
        '{"ops": [{"name": "op1", "type": "compute"}]}'
    entry '{"artifact": {"name": "inductor_collective_schedule", "encoding": "json"}, "rank": 14, "frame_id": 0, "frame_compile_id": 1, "attempt": 0}' \
        '[1, 2]'
} >ranks/dedicated_log_torch_trace_rank_14.log
# files that are not rank logs
echo x >ranks/another.log
mkdir ranks/dedicated_log_torch_trace_rank_99.log
echo x >ranks/dedicated_log_torch_trace_rank_x.log

"$bin" --all-ranks-html ranks -o j1 -j 1 --no-browser >out1.txt 2>err1.txt || bad "-j 1: exit $?: $(tail -3 err1.txt)"
"$bin" --all-ranks-html ranks -o j2 -j 2 --no-browser >out2.txt 2>err2.txt || bad "-j 2: exit $?: $(tail -3 err2.txt)"
mkdir two
for f in ranks/dedicated_log_torch_trace_rank_*.log; do
    [ -f "$f" ] || continue
    n=$(basename "$f" .log); n=${n#dedicated_log_torch_trace_rank_}
    case $n in *[!0-9]*) continue ;; esac
    "$bin" --rank-only "$f" -o "two/rank_$n" --no-browser >/dev/null 2>>err_two.txt
done
"$bin" --all-ranks-html --from-summaries two --no-browser >out3.txt 2>err3.txt || bad "--from-summaries: exit $?: $(tail -3 err3.txt)"
# the broken rank's folder holds only its summary.json, which says what went wrong
[ "$(ls j1/rank_13)" = summary.json ] || bad "the broken rank 13's folder: $(ls j1/rank_13)"
grep -q 'tlparse: error: ranks/dedicated_log_torch_trace_rank_13.log is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary' err_two.txt ||
    bad "--rank-only on the broken rank: $(cat err_two.txt)"
# stripped DIR: a copy DIR.s without what says how each run was made (the command line in the
# rank indexes' footers and summary.json's generated_by), which differs from run to run
stripped() { rm -rf "$1.s" && cp -r "$1" "$1.s" && python3 "$here/strip_runinfo.py" "$1.s"; }
stripped j1 && stripped j2 && stripped two
diff -r j1.s j2.s >diff12.txt || bad "-j 1 and -j 2 differ: $(head -5 diff12.txt)"
# one step and two steps: the same files, but for the string table a one-step run carries
# from rank to rank in raw.jsonl's first line (the reference's, spec modes.md §1.3)
diff -r -x raw.jsonl j1.s two.s >diff13.txt || bad "one step and two steps differ: $(head -12 diff13.txt)"
for f in j1/rank_*/raw.jsonl; do
    cmp -s <(tail -n +2 "$f") <(tail -n +2 "two/${f#j1/}") || bad "$f differs beyond its first line"
done
sed 's/j2/j1/g' err2.txt | cmp -s err1.txt - || bad "-j 1 and -j 2 print different messages: $(diff err1.txt err2.txt | head -5)"
ls -d j1/rank_* | wc -l | grep -qx 16 || bad "rank folders: $(ls j1)"
for f in index.html summary.json chromium_events.json runtime_estimations.json \
    chromium_trace_with_runtime.json collective_schedules.json; do
    [ -s "j1/$f" ] || bad "j1/$f missing"
done
for r in 0 5 9 11 12 14 15; do
    for f in index.html summary.json collectives_parity.json compile_directory.json raw.jsonl; do
        [ -s "j1/rank_$r/$f" ] || bad "j1/rank_$r/$f missing"
    done
done
# messages: every rank's lines together, in rank-name order; the warnings name the rank
grep -c '^Processing rank ' err1.txt | grep -qx 16 || bad "Processing lines: $(grep -c '^Processing rank ' err1.txt)"
python3 - err2.txt ranks <<'PY' || bad "-j 2 messages are not grouped by rank"
import os, sys
lines = open(sys.argv[1]).read().splitlines()
starts = [i for i, l in enumerate(lines) if l.startswith("Processing rank ")]
names = [lines[i].split()[2] for i in starts]
# the ranks in the order the folder lists them (os.listdir is readdir's order)
listed = [n[len("dedicated_log_torch_trace_rank_"):-4] for n in os.listdir(sys.argv[2])
          if n.startswith("dedicated_log_torch_trace_rank_") and n[31:-4].isdigit()
          and os.path.isfile(os.path.join(sys.argv[2], n))]
assert names == listed, (names, listed)
# each rank's Stats line comes before the next rank starts
for a, b in zip(starts, starts[1:] + [len(lines)]):
    block = lines[a:b]
    assert any(l.startswith("Stats {") for l in block) or any("rank 13" in l for l in block), block
PY
grep -q 'tlparse: warning: rank 13: ranks/dedicated_log_torch_trace_rank_13.log is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary; it has no report' err1.txt || bad "no warning for the broken rank 13: $(grep 'rank 13' err1.txt)"
grep -q 'tlparse: warning: rank 14' err1.txt && bad "malformed artifacts are notes, not rank errors"
grep -qx 'Multi-rank report generated under j1' err1.txt || bad "no closing line"
grep -qx 'Runtime estimations: j1/runtime_estimations.json' err1.txt || bad "no runtime line"
grep -qx 'Collective schedules: j1/collective_schedules.json' err1.txt || bad "no schedules line"
# the landing page says which rank broke and what was malformed
grep -q 'Rank 13' j1/index.html || bad "landing: rank 13 is not listed"
grep -q 'Rank 13: no report (ranks/dedicated_log_torch_trace_rank_13.log is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary)' j1/index.html ||
    bad "landing: rank 13's error is not said"
grep -q 'inductor_runtime_and_tensor_meta_[0-9]*.json has an op without name or estimated_runtime_ns' j1/index.html ||
    bad "landing: rank 14's malformed runtime artifact is not said"
grep -q 'inductor_collective_schedule_[0-9]*.json is not a list of op names' j1/index.html ||
    bad "landing: rank 14's malformed schedule is not said"
grep -q '<a href="rank_14/index.html">Rank 14</a>' j1/index.html || bad "landing: rank 14 has no link"
grep -q '<a href="rank_13/index.html">' j1/index.html && bad "landing: the broken rank 13 is linked"
grep -q 'Diverging Compilation IDs detected' j1/index.html || bad "landing: no compile-id divergence"
grep -q 'Runtime analysis not available' j1/index.html || bad "landing: ranks with different graph counts"
python3 - j1 <<'PY' || bad "summary.json of the 16 ranks"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert s["schema"] == "tlparse-ranks/1", s["schema"]
ranks = {r["rank"]: r for r in s["ranks"]}
assert sorted(ranks) == list(range(16)), sorted(ranks)
assert ranks[13]["report"] is None and "its first lines are binary" in ranks[13]["error"], ranks[13]
assert ranks[0]["report"] == "rank_0/index.html" and ranks[0]["error"] is None
assert "is not a list of op names" in ranks[14]["notes"], ranks[14]
assert s["compile_ids_diverge"] is True
kinds = {d["kind"]: d for d in s["divergences"]}
# every generated rank recompiles but rank 5; the empty rank 12 and the crafted rank 14 do not;
# the broken rank 13 is in neither list
assert sorted(kinds) == ["recompiles"], s["divergences"]
assert kinds["recompiles"]["ranks"] == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 15], kinds["recompiles"]
assert kinds["recompiles"]["others"] == [5, 12, 14], kinds["recompiles"]
usual = [0, 1, 2, 3, 4, 6, 8, 10, 11, 15]
# the cache: a miss per compile (❌), rank 7's first one a hit (✅)
cache = {g["sequence"]: g["ranks"] for g in s["cache_groups"]}
assert cache == {"\u274c\u274c": usual, "\u2705\u274c": [7], "\u274c": [5],
                 "\u274c\u274c\u274c": [9], "": [12, 14]}, cache
# the collectives: all_reduce_ then wait_tensor per compile; rank 11 all-gathers
R, G, W = ("torch.ops._c10d_functional.%s.default" % o
           for o in ("all_reduce_", "all_gather_into_tensor", "wait_tensor"))
coll = {g["ops"]: g["ranks"] for g in s["collective_groups"]}
assert coll == {",".join([R, W] * 2): [0, 1, 2, 3, 4, 6, 7, 8, 10, 15], ",".join([R, W]): [5],
                ",".join([R, W] * 3): [9], ",".join([G, W] * 2): [11], "": [12, 14]}, coll
for r in range(16):
    if r == 13:
        continue
    # [0/0] and [0/1] (rank 14's artifacts too); rank 5 no [0/1]; rank 9 [1/0] as well
    want = {12: 0, 5: 1, 9: 3}.get(r, 2)
    assert ranks[r]["compile_ids"] == want, (r, ranks[r]["compile_ids"])
# rank 15's code calls its collectives but never waits for them
parity = json.load(open(sys.argv[1] + "/rank_15/collectives_parity.json"))["graphs"]
assert sorted((g["graph"], g["offset"], g["missing_waits"]) for g in parity) == \
    [("-_0_0_0", 0, 1), ("-_0_1_0", 0, 1)], parity
for r in (0, 5, 9, 11):
    assert json.load(open("%s/rank_%d/collectives_parity.json" % (sys.argv[1], r)))["graphs"] == []
# every rank's own summary carries its rank section
r0 = json.load(open(sys.argv[1] + "/rank_0/summary.json"))
assert r0["rank"]["number"] == 0 and r0["source"]["path"] == "dedicated_log_torch_trace_rank_0.log"
# where each rank's time went: its own ledger's lines (the empty rank 12, the broken rank 13
# and the crafted rank 14 time nothing); every compile takes 1.5 s, rank 9 compiles 3 times
lines = ("span_s", "compiling_s", "runtime_s", "unaccounted_s")
led = {x["rank"]: x for x in s["ledger"]["ranks"]}
assert sorted(led) == [r for r in range(16) if r not in (12, 13, 14)], sorted(led)
for r, x in led.items():
    own = json.load(open("%s/rank_%d/summary.json" % (sys.argv[1], r)))["compile_time"]["ledger"]
    assert all(x[k] == own[k] for k in lines), (r, x, own)
    assert x["compiling_s"] == {5: 1.5, 9: 4.5}.get(r, 3.0), (r, x)
assert s["ledger"]["straggler"] == 9, s["ledger"]["straggler"]
PY
grep -q "<strong>Rank 9 compiled longest</strong>: 4.50 s, 3.00 s more than Rank 5;" j1/index.html ||
    bad "landing: the straggler is not called out"
grep -q '<a href="rank_9/compile_time.html">Rank 9</a> <strong>(longest)</strong>' j1/index.html ||
    bad "landing: rank 9's ledger row"
grep -q 'href="rank_12/compile_time.html"' j1/index.html && bad "landing: rank 12 timed nothing, yet its ledger is linked"
# --summary and --json of the folder: the same lines, the straggler
"$bin" ranks --summary >fsum.txt 2>/dev/null
grep -qx '    Rank 5: the log spans 1.50 s; compiling 1.50 s (100%), unaccounted 0.00 s (0%)' fsum.txt ||
    bad "--summary of the folder: rank 5's time: $(grep -n 'Rank 5:' fsum.txt)"
grep -qx '  Rank 9 compiled longest: 4.50 s, 3.00 s more than Rank 5.' fsum.txt ||
    bad "--summary of the folder: no straggler"
# (it exits 1: rank 13 cannot be read)
{ "$bin" ranks --json 2>/dev/null || true; } | python3 -c '
import json, sys
f = json.load(sys.stdin)
s = json.load(open("j1/summary.json"))
assert f["ledger"] == s["ledger"], (f["ledger"], s["ledger"])' || bad "--json of the folder: its ledger"
# the combined trace: every event of every rank with pid = the rank
python3 - j1 <<'PY' || bad "combined chromium_events.json"
import json, sys, collections
root = json.load(open(sys.argv[1] + "/chromium_events.json"))
count = collections.Counter(e["pid"] for e in root)
for r in range(16):
    try:
        own = json.load(open("%s/rank_%d/chromium_events.json" % (sys.argv[1], r)))
    except FileNotFoundError:
        assert r == 13
        continue
    assert count.get(r, 0) == len(own), (r, count.get(r), len(own))
PY

# ---- --from-summaries: a damaged summary is reported, the others are used --------------------
cp -r two three
echo '{"schema": "tlparse-summary/1"}' >three/rank_3/summary.json
printf 'not json' >three/rank_4/summary.json
"$bin" --all-ranks-html --from-summaries three --no-browser >/dev/null 2>err4.txt || bad "--from-summaries with damaged summaries: exit $?"
grep -q 'rank 3: rank_3/summary.json: it has no "rank" member' err4.txt || bad "damaged rank 3: $(cat err4.txt)"
grep -q 'rank 4: rank_4/summary.json: not JSON' err4.txt || bad "damaged rank 4: $(cat err4.txt)"
grep -q 'Rank 3' three/index.html || bad "rank 3 not listed"
# a second run in place gives the same files
cp -r two again
"$bin" --all-ranks-html --from-summaries again --no-browser >/dev/null 2>&1 || bad "second --from-summaries: exit $?"
stripped again && stripped two
diff -r two.s again.s >/dev/null || bad "--from-summaries run twice differs"

# ---- ranks that agree: no warning, no divergence; a slow rank: the runtime analysis --------------
gen agree --ranks 2
mkdir same
cp agree/dedicated_log_torch_trace_rank_0.log same/dedicated_log_torch_trace_rank_0.log
cp agree/dedicated_log_torch_trace_rank_0.log same/dedicated_log_torch_trace_rank_1_abc.log
"$bin" --all-ranks-html same -o same_out --no-browser >/dev/null 2>err5.txt || bad "two copies: exit $?"
grep -q 'class="warning-box"' same_out/index.html && bad "two copies: a warning box"
python3 -c 'import json,sys; s=json.load(open("same_out/summary.json")); assert s["divergences"]==[] and not s["compile_ids_diverge"], s' ||
    bad "two copies: divergences in summary.json"
grep -q 'Graph execution order: Consistent across ranks.' same_out/index.html || bad "two copies: execution order"
grep -q 'All ranks have matching tensor meta signatures.' same_out/index.html || bad "two copies: tensor meta"
# rank 1 of 3 is estimated 1.5 times as slow: [0/0] 1 + 0.25 ms, [0/1] 2 + 0.25 ms; ties go to
# the higher rank
gen slow --ranks 3 --slow 1
"$bin" --all-ranks-html slow -o slow_out --no-browser >/dev/null 2>err8.txt || bad "slow rank: exit $?"
grep -qF '<p><strong>Graph -_0_0_0:</strong> 0.625 ms delta (Fastest: Rank 2 - 1.25 ms, Slowest: Rank 1 - 1.875 ms)</p>' slow_out/index.html ||
    bad "slow rank: graph -_0_0_0: $(grep -o '<p><strong>Graph -_0_0_0.*' slow_out/index.html)"
grep -qF '<p><strong>Graph -_0_1_0:</strong> 1.125 ms delta (Fastest: Rank 2 - 2.25 ms, Slowest: Rank 1 - 3.375 ms)</p>' slow_out/index.html ||
    bad "slow rank: graph -_0_1_0: $(grep -o '<p><strong>Graph -_0_1_0.*' slow_out/index.html)"
grep -q 'Diverging' slow_out/index.html && bad "slow rank: a divergence warning"
python3 - slow_out <<'PY' || bad "slow rank: runtime_estimations.json and the tensor meta groups"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert [g["ranks"] for g in s["tensor_meta_groups"]] == [[0, 2], [1]], s["tensor_meta_groups"]
est = json.load(open(sys.argv[1] + "/runtime_estimations.json"))
got = [(e["rank"], e["graph"], [o["estimated_runtime_ns"] for o in e["ops"]]) for e in est]
assert sorted(got) == [(r, g, [t * f, 250000.0 * f]) for r, f in ((0, 1), (1, 1.5), (2, 1))
                       for g, t in (("-_0_0_0", 1e6), ("-_0_1_0", 2e6))], got
PY

# ---- the landing page leads with a verdict and the table of ranks ---------------------------------
# 4 ranks, rank 3 all-gathers where the others all-reduce: the verdict names the first graph and
# op where they part, before the table; the details come after the table; a footer says what
# made the page
gen four --ranks 4 --gather 3
"$bin" --all-ranks-html four -o four_out --no-browser >/dev/null 2>&1 || bad "four ranks: exit $?"
python3 - four_out/index.html <<'PY' || bad "four ranks: the landing page's lead"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
verdict = ("<li class='bad'><strong>Collectives differ:</strong> Ranks 0-2 call "
           "<code>all_reduce_</code> where Rank 3 calls <code>all_gather_into_tensor</code>, "
           "first in graph <code>[0/0]</code>, op #1.</li>")
at = {k: page.find(v) for k, v in {
    "title": "<h2>Multi-Rank TLParse Report</h2>", "verdict": verdict,
    "table": "<table class='ranks sortable'>", "details": "<h3 id='details'>Divergence details</h3>",
    "box": 'class="warning-box"', "chromium": "<h3>Chromium Events</h3>",
    "footer": "<footer class='runinfo'>"}.items()}
assert all(v >= 0 for v in at.values()), at
order = sorted(at, key=at.get)
assert order == ["title", "verdict", "table", "details", "box", "chromium", "footer"], order
assert "<td class='status bad' data-value='2'>differs: collectives, tensor meta</td>" in page
assert page.count("<td class='status ok' data-value='0'>ok</td>") == 3
assert re.search(r"<footer class='runinfo'>\n<p>tlparse [0-9.]+.* · command: <code class='cmd'>"
                 r"[^<]*--all-ranks-html four -o four_out --no-browser</code> · input: "
                 r"<code>four</code></p>\n</footer>", page), page[page.find("<footer"):][:400]
PY
# compile ids in numeric order, [-/-] never shown as one: rank 1 compiles step 12 times, rank 2
# logs an entry outside any compilation
gen lead --ranks 4 --more 1:12 --idless 2
"$bin" --all-ranks-html lead -o lead_out --no-browser >/dev/null 2>&1 || bad "numeric order: exit $?"
ids=$(for c in $(seq 2 11); do printf '<code>[0/%d]</code>, ' "$c"; done)
grep -qF "<li>${ids%, }: not on Rank 0, Rank 2, Rank 3</li>" lead_out/index.html ||
    bad "the compile ids rank 1 alone compiled are not in numeric order: $(grep -o '<li><code>\[0/.*' lead_out/index.html)"
grep -qF "Rank 1 compiled <code>[0/2]</code>, which Ranks 0, 2, 3 did not" lead_out/index.html ||
    bad "the verdict does not name [0/2] first: $(grep -o 'Compile ids differ.*' lead_out/index.html)"
grep -qF "Ranks 0, 2, 3 call nothing where Rank 1 calls <code>all_reduce_</code>, first in graph <code>[0/2]</code>, op #1." lead_out/index.html ||
    bad "the verdict does not name where rank 1's collectives part: $(grep -o 'Collectives differ.*' lead_out/index.html)"
grep -qF -- "[-/-]" lead_out/index.html && bad "[-/-] is shown as a compile id"
grep -qF "Entries without a compile id (logged outside any compilation): on Rank 2, not on Rank 0, Rank 1, Rank 3" lead_out/index.html ||
    bad "the entries without a compile id are not said"

# ---- duplicate ranks: the first log in name order is used ----------------------------------------
mkdir dup
cp agree/dedicated_log_torch_trace_rank_0.log dup/dedicated_log_torch_trace_rank_0.log
cp agree/dedicated_log_torch_trace_rank_1.log dup/dedicated_log_torch_trace_rank_00.log
"$bin" --all-ranks-html dup -o dup_out --no-browser >/dev/null 2>err6.txt || bad "duplicate ranks: exit $?"
grep -q 'dup/dedicated_log_torch_trace_rank_00.log is rank 0 too; only dup/dedicated_log_torch_trace_rank_0.log is used' err6.txt ||
    bad "duplicate ranks: $(cat err6.txt)"
[ "$(ls -d dup_out/rank_*)" = dup_out/rank_0 ] || bad "duplicate ranks: $(ls dup_out)"

# ---- the command line ---------------------------------------------------------------------------
expect() { # expect CODE PATTERN ARGS...
    local code=$1 pat=$2
    shift 2
    "$bin" "$@" >cli_out.txt 2>cli_err.txt
    local got=$?
    [ "$got" = "$code" ] || bad "tlparse $*: exit $got, not $code ($(cat cli_err.txt))"
    grep -q -- "$pat" cli_err.txt || bad "tlparse $*: no '$pat' in: $(cat cli_err.txt)"
}
cp agree/dedicated_log_torch_trace_rank_1.log plain.log # a log whose name says no rank
expect 1 '--latest cannot be used with --all-ranks-html' --all-ranks-html --latest /nonexistent -o x
[ ! -e x ] || bad "--latest with --all-ranks-html created the output"
expect 1 'Input path ranks/another.log must be a directory when using --all-ranks-html' --all-ranks-html ranks/another.log -o x
mkdir empty
expect 1 'No rank log files found in directory empty' --all-ranks-html empty -o x --no-browser
[ ! -e x ] || bad "an empty input folder left an output folder"
expect 1 'Directory j1 already exists' --all-ranks-html ranks -o j1 --no-browser
expect 2 '-j wants a number of threads' --all-ranks-html ranks -j 0
expect 2 '-j wants a number of threads' --all-ranks-html ranks -j two
expect 2 'cannot use --from-summaries without --all-ranks-html' --from-summaries two
expect 2 'cannot use -o with --from-summaries' --all-ranks-html --from-summaries two -o y
expect 2 'cannot use --rank without --rank-only' ranks/dedicated_log_torch_trace_rank_0.log --rank 3
expect 2 'cannot use --rank-only with --all-ranks-html' --all-ranks-html --rank-only ranks
expect 2 'cannot tell the rank of' --rank-only plain.log -o z
expect 1 'No rank reports (rank_N/summary.json) found in empty' --all-ranks-html --from-summaries empty
"$bin" --rank-only plain.log --rank 7 -o rank_7 --no-browser >/dev/null 2>&1 || bad "--rank-only --rank 7: exit $?"
python3 -c 'import json; s=json.load(open("rank_7/summary.json")); assert s["rank"]["number"]==7 and s["rank"]["log"]=="plain.log", s["rank"]' ||
    bad "--rank 7: summary.json"
# --rank-failed: a rank whose task failed (tlparse-slurm) is on the landing page, missing with
# the reason given; its usage rules
expect 2 'cannot use --rank-failed without --rank N' --rank-only --rank-failed why -o z
expect 2 'cannot use --rank-failed without --rank-only' plain.log --rank-failed why
expect 2 'cannot use --rank-failed with a PATH' --rank-only plain.log --rank 3 --rank-failed why -o z
[ ! -e z ] || bad "a refused --rank-failed created its output"
mkdir failed
"$bin" --rank-only plain.log --rank 0 -o failed/rank_0 --no-browser >/dev/null 2>&1 || bad "--rank-only for --rank-failed: exit $?"
"$bin" --rank-only --rank 3 --rank-failed 'task exited 137 (OUT_OF_MEMORY) on node n1 <b>' -o failed/rank_3 \
    >rf_out.txt 2>rf_err.txt || bad "--rank-failed: exit $?: $(cat rf_err.txt)"
grep -qx 'Rank 3 has no report (task exited 137 (OUT_OF_MEMORY) on node n1 <b>): said in failed/rank_3/summary.json' rf_err.txt ||
    bad "--rank-failed: its message: $(cat rf_err.txt)"
[ "$(ls failed/rank_3)" = summary.json ] || bad "--rank-failed wrote more than summary.json: $(ls failed/rank_3)"
"$bin" --all-ranks-html --from-summaries failed --no-browser >/dev/null 2>rf_err.txt || bad "--from-summaries with a failed rank: exit $?"
grep -q 'Rank 3: no report (task exited 137 (OUT_OF_MEMORY) on node n1 &lt;b&gt;)' failed/index.html ||
    bad "the landing page does not list the failed rank with its reason"
[ "$(tail -1 rf_err.txt)" = "tlparse: failed/index.html: 1 rank (and 1 not read), 2 compile ids, 0 graph breaks, 1 recompile, 0 failures" ] ||
    bad "--from-summaries with a failed rank: $(cat rf_err.txt)"
# --overwrite replaces a landing folder
"$bin" --all-ranks-html same -o same_out --overwrite --no-browser >/dev/null 2>&1 || bad "--overwrite: exit $?"

# ---- the last line: the ranks read and those not read, counted right in every case ----------------
# last_line FOLDER WANT: --all-ranks-html on FOLDER exits 0 and its last line is WANT (OUT for the
# output folder)
last_line() {
    rm -rf ll_out
    "$bin" --all-ranks-html "$1" -o ll_out --no-browser >/dev/null 2>ll_err.txt || bad "last line of $1: exit $?"
    [ "$(tail -1 ll_err.txt)" = "tlparse: ll_out/index.html: $2" ] ||
        bad "last line of $1: '$(tail -1 ll_err.txt)', want '$2'"
}
mkdir ll_none ll_one ll_some ll_single
for r in 0 1; do cp ranks/dedicated_log_torch_trace_rank_13.log "ll_none/dedicated_log_torch_trace_rank_$r.log"; done
cp agree/dedicated_log_torch_trace_rank_0.log ll_one/
cp ranks/dedicated_log_torch_trace_rank_13.log ll_one/dedicated_log_torch_trace_rank_1.log
cp agree/dedicated_log_torch_trace_rank_0.log agree/dedicated_log_torch_trace_rank_1.log ll_some/
cp slow/dedicated_log_torch_trace_rank_2.log ll_some/
cp ranks/dedicated_log_torch_trace_rank_13.log ll_some/dedicated_log_torch_trace_rank_3.log
cp agree/dedicated_log_torch_trace_rank_0.log ll_single/
last_line ll_none "0 ranks (and 2 not read), 0 compile ids, 0 graph breaks, 0 recompiles, 0 failures"
last_line ll_one "1 rank (and 1 not read), 2 compile ids, 0 graph breaks, 1 recompile, 0 failures"
last_line ll_some "3 ranks (and 1 not read), 6 compile ids, 0 graph breaks, 3 recompiles, 0 failures"
last_line agree "2 ranks, 4 compile ids, 0 graph breaks, 2 recompiles, 0 failures"
last_line ll_single "1 rank, 2 compile ids, 0 graph breaks, 1 recompile, 0 failures"
# a landing page made from the summaries counts what the one-step run counts (an entry without a
# compile id, [-/-], is not a compile id)
gen idless --ranks 2 --idless 1
last_line idless "2 ranks, 4 compile ids, 0 graph breaks, 2 recompiles, 0 failures"
mkdir idless_two
for r in 0 1; do
    "$bin" --rank-only "idless/dedicated_log_torch_trace_rank_$r.log" -o "idless_two/rank_$r" --no-browser >/dev/null 2>&1 ||
        bad "--rank-only idless rank $r: exit $?"
done
"$bin" --all-ranks-html --from-summaries idless_two --no-browser >/dev/null 2>ll_err.txt || bad "--from-summaries idless: exit $?"
[ "$(tail -1 ll_err.txt)" = "tlparse: idless_two/index.html: 2 ranks, 4 compile ids, 0 graph breaks, 2 recompiles, 0 failures" ] ||
    bad "--from-summaries counts otherwise: $(tail -1 ll_err.txt)"
# --fail-on when no rank could be read: said so, not a diagnosis of the newest log
"$bin" --all-ranks-html ll_none -o ll_out --overwrite --fail-on recompiles --no-browser >/dev/null 2>ll_err.txt
[ "$?" = 1 ] || bad "--fail-on with no rank read: exit not 1"
grep -qx 'tlparse: --fail-on: 2 ranks could not be read' ll_err.txt || bad "--fail-on with no rank read: $(cat ll_err.txt)"

# ---- the string table carried from rank to rank, in the order the ranks are taken ------------
# (spec modes.md §1.3): the file system's listing order (Python's os.listdir is readdir's), or
# name order with --name-order. string_tables NAME FOLDER LAST N: in name order, rank LAST comes
# last and carries N entries.
string_tables() {
    local name=$1 folder=$2
    "$bin" --all-ranks-html "$folder" -o "$name.listed" -j 2 --no-browser >/dev/null 2>&1 || bad "$name: listing order: exit $?"
    "$bin" --all-ranks-html "$folder" -o "$name.named" -j 2 --name-order --no-browser >/dev/null 2>&1 ||
        bad "$name: --name-order: exit $?"
    python3 - "$folder" "$name" "$3" "$4" <<'PY' || bad "$name: the string tables carried from rank to rank"
import json, os, re, sys
folder, name, last, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def rank_of(name):
    m = re.match(r"dedicated_log_torch_trace_rank_\+?(\d+)[_.]", name)
    return int(m.group(1))
def tables(names):
    carry, want = {}, {}
    for name in names:
        for line in open(os.path.join(folder, name), encoding="utf-8", errors="replace"):
            m = re.search(r'\] (\{"str": .*)$', line)
            if m:
                s, i = json.loads(m.group(1))["str"]
                carry[i] = s
        want[rank_of(name)] = [carry.get(i) for i in range(max(carry) + 1)] if carry else [None]
    return want
names = [n for n in os.listdir(folder) if n.startswith("dedicated_log_torch_trace_rank_")]
for out, order in (("listed", names), ("named", sorted(names))):
    for rank, want in tables(order).items():
        got = json.loads(open("%s.%s/rank_%d/raw.jsonl" % (name, out, rank)).readline())["string_table"]
        assert got == want, (out, rank, got, want)
got = json.loads(open("%s.named/rank_%d/raw.jsonl" % (name, last)).readline())["string_table"]
assert len(got) == n, (last, got)
PY
    # only raw.jsonl's first line depends on the order; the rest of the rank folders do not here
    stripped "$name.listed" && stripped "$name.named"
    diff -r -x raw.jsonl "$name.listed.s" "$name.named.s" >/dev/null ||
        bad "$name: listing and name order differ beyond raw.jsonl: $(diff -rq -x raw.jsonl "$name.listed.s" "$name.named.s" | head -3)"
}
# rank 3 comes last and carries rank 0's 8 strings (each rank names its own Python), not its own
# 2; no Inductor artifacts, whose folders each rank's analyses take in listing order
gen strings --ranks 4 --strings 0:8,1:3,2:5,3:2 --no-inductor
string_tables strings strings 3 8

# ---- cache misses across ranks ------------------------------------------------------------------
# rank 1 turns max_autotune on: its FX graph lookups miss where rank 0's [0/0] hit and where
# ranks 0 and 2 stored [0/1]; rank 2's [0/0] missed the key rank 0 hit (a cold cache, not a
# difference). The landing page, its summary.json (also made from the summaries alone), and
# --summary and --json of the folder name the config.
gen acache --ranks 3 --hit 0 --autotune 1
"$bin" --all-ranks-html acache -o acache.out --no-browser >/dev/null 2>acache.err ||
    bad "cache across ranks: exit $?: $(tail -3 acache.err)"
mkdir -p acache.sum && cp -r acache.out/rank_* acache.sum/
"$bin" --all-ranks-html --from-summaries acache.sum --no-browser >/dev/null 2>>acache.err ||
    bad "cache across ranks: --from-summaries: exit $?: $(tail -3 acache.err)"
"$bin" acache --json >acache.json 2>>acache.err || bad "cache across ranks: --json: exit $?"
python3 - <<'PY' || bad "cache across ranks: summary.json, --json"
import json
on = "inductor config `max_autotune` changed (False -> True)"
off = "inductor config `max_autotune` changed (True -> False)"
want = [([0, 2], ["[0/1]", "[0/1]"], 1, "[0/1]", "stored", off),
        ([1], ["[0/0]"], 0, "[0/0]", "hit", on),
        ([1], ["[0/1]"], 0, "[0/1]", "stored", on)]
for f in ("acache.out/summary.json", "acache.sum/summary.json", "acache.json"):
    s = json.load(open(f))
    got = [(m["ranks"], m["compile_ids"], m["against"]["rank"], m["against"]["compile_id"],
            m["against"]["state"], [d["words"] for d in m["differs"]]) for m in s["cache_misses"]]
    assert got == [w[:5] + ([w[5]],) for w in want], (f, got)
    assert s["cache_misses"][1]["differs"][0] == {
        "component": "inductor_config[max_autotune]", "before": "False", "after": "True",
        "words": on}, f
    assert s["cache_lookups_dropped"] == 0, f
PY
"$bin" acache --summary >acache.txt 2>>acache.err || bad "cache across ranks: --summary: exit $?"
grep -qxF '  Cache miss on rank 1 [0/0] (FX graph, inference) against rank 0'"'"'s [0/0] (hit): inductor config `max_autotune` changed (False -> True)' acache.txt ||
    bad "cache across ranks: --summary: $(grep 'Cache miss on' acache.txt | head -3)"
for page in acache.out/index.html acache.sum/index.html; do
    grep -qF "<p>Cache miss on ranks 0 [0/1], 2 [0/1] (FX graph, inference), against rank 1's [0/1] (stored):</p>" "$page" &&
        grep -qF '<li>inductor config `max_autotune` changed (False -&gt; True)</li>' "$page" ||
        bad "cache across ranks: $page lacks the misses"
done
# the same ranks without the config apart: nothing across ranks
gen acache2 --ranks 3 --hit 0 --autotune 7
"$bin" acache2 --json >acache2.json 2>/dev/null || bad "cache alike across ranks: exit $?"
python3 -c 'import json,sys; s=json.load(open("acache2.json")); sys.exit("cache_misses" in s)' ||
    bad "cache alike across ranks: misses said"

# ---- the corpus's multi-rank logs, when ../shared is here --------------------------------------
logs=$shared/corpus/logs
if [ -d "$logs/multi_rank_runtime" ] && [ -d "$logs/multi_rank_logs" ]; then
    "$bin" --all-ranks-html "$logs/multi_rank_runtime" -o c1 -j 1 --no-browser >/dev/null 2>ce1.txt || bad "corpus -j 1: exit $?: $(tail -3 ce1.txt)"
    "$bin" --all-ranks-html "$logs/multi_rank_runtime" -o c2 -j 2 --no-browser >/dev/null 2>ce2.txt || bad "corpus -j 2: exit $?: $(tail -3 ce2.txt)"
    stripped c1 && stripped c2
    diff -r c1.s c2.s >diffc.txt || bad "corpus: -j 1 and -j 2 differ: $(head -5 diffc.txt)"
    [ "$(ls -d c1/rank_* | wc -l)" = 7 ] || bad "corpus: rank folders: $(ls c1)"
    for f in runtime_estimations.json chromium_trace_with_runtime.json collective_schedules.json; do
        [ -s "c1/$f" ] || bad "corpus: c1/$f missing"
    done
    # in name order rank 3 comes last and carries rank 0's strings: 8 entries, not its own 2
    string_tables corpus "$logs/multi_rank_logs" 3 8
else
    echo "multirank: ../shared absent: the corpus's multi-rank logs are not checked (our own ranks are)"
fi

[ "$fail" = 0 ] || exit 1
echo "multirank: all checks passed"
