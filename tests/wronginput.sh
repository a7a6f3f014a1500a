#!/usr/bin/env bash
# Wrong input gets a clear answer (issue 23): a file that is no log is an error in every
# output mode and leaves nothing behind; a folder takes only the files that are logs; --strict
# means the same in every mode; a truncated compressed log is read up to its cut; every report
# is named on the last line with what it found; a folder of rank logs is answered for every
# rank in every mode. Every input is made here. Exact messages and exit codes.
# Usage: tests/wronginput.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # new_tmp; counts checks (ok, bad, run, has, hasnt, same, exists, absent); P, md5, entry
bin=$(realpath "$1")
new_tmp
cd "$tmp" || exit 1

# nothing_left: no report folder and no temporary folder in the current folder
nothing_left() {
    local left
    left=$(ls -A | grep -E '^(tl_out|\.tl_out|o$|\.o\.)' || true)
    if [ -z "$left" ]; then ok; else bad "left behind: $left"; fi
}

# a small trace: compile ids [0/0] and [1/0], [1/0] failed
trace() {
    local f
    for f in 0 1; do
        entry '{"dynamo_start": {"stack": []}, "frame_id": '$f', "frame_compile_id": 0, "attempt": 0}' ''
        entry '{"dynamo_output_graph": {}, "frame_id": '$f', "frame_compile_id": 0, "attempt": 0, "has_payload": "@MD5@"}' "graph $f"
    done
    entry '{"compilation_metrics": {"fail_type": "BackendCompilerFailed", "fail_reason": "boom"}, "frame_id": 1, "frame_compile_id": 0, "attempt": 0}' ''
}

# binary: 4 KiB of bytes that are no text (NULs and control characters among them)
python3 -c 'import sys, random; r = random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(4096)))' >data.bin
why_bin="tlparse: error: data.bin is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"

# --- a file that is no log: an error in every mode, no report, nothing printed on stdout
run 1 data.bin --no-browser
same err.txt "$why_bin"
same out.txt ""
nothing_left
run 1 data.bin --summary
same err.txt "$why_bin"
same out.txt ""
run 1 data.bin --json
same err.txt "$why_bin"
same out.txt ""
for kinds in any failures graph-breaks; do
    run 1 data.bin --fail-on "$kinds" --no-browser
    same err.txt "$why_bin"
    nothing_left
    run 1 data.bin --summary --fail-on "$kinds"
    same err.txt "$why_bin"
done
run 1 data.bin -o o --strict --no-browser
same err.txt "$why_bin"
nothing_left
# compressed, the same answer
gzip -c data.bin >data.bin.gz
run 1 data.bin.gz --summary
same err.txt "tlparse: error: data.bin.gz is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"
# standard input
"$bin" - --summary <data.bin >out.txt 2>err.txt
[ $? = 1 ] && ok || bad "- <data.bin: not exit 1"
same err.txt "tlparse: error: /dev/stdin is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"

# text that is neither: said with its number of lines
printf 'hello\nworld {"a": 1}\n' >notes.txt
run 1 notes.txt --no-browser
same err.txt "tlparse: error: notes.txt is not a TORCH_TRACE log or TORCH_LOGS text: none of its 2 lines has a glog prefix or is a TORCH_LOGS message"
nothing_left
printf 'just one line' >one.txt
run 1 one.txt --json
same err.txt "tlparse: error: one.txt is not a TORCH_TRACE log or TORCH_LOGS text: its one line has no glog prefix and is not a TORCH_LOGS message"
same out.txt ""
# lines of payload and nothing else
for i in $(seq 25); do printf '\torphan %d\n' "$i"; done >orphans.log
run 1 orphans.log --no-browser
same err.txt "tlparse: error: orphans.log is not a TORCH_TRACE log or TORCH_LOGS text: none of its 25 lines has a glog prefix or is a TORCH_LOGS message"
# a big text file: only its first 256 KiB are looked at
python3 -c 'print("\n".join("line %d of a text that is no log" % i for i in range(20000)))' >big.txt
run 1 big.txt --summary
has err.txt "tlparse: error: big.txt is not a TORCH_TRACE log or TORCH_LOGS text: none of its first "
has err.txt " lines has a glog prefix or is a TORCH_LOGS message"

# glog prefixes, and not one TORCH_TRACE entry after them: read, warned, then refused
{
    printf '%snot json\n' "$P"
    printf '%s{"broken": \n' "$P"
} >glogonly.log
want_glog="tlparse: warning: glogonly.log:1: Failed to parse metadata JSON: expected value at column 1
tlparse: warning: glogonly.log:2: Failed to parse metadata JSON: unexpected end of input at column 12
Stats { fail_json: 2 }
tlparse: error: glogonly.log is not a TORCH_TRACE log or TORCH_LOGS text: none of its 2 lines holds a TORCH_TRACE entry (JSON after a glog prefix)"
run 1 glogonly.log --no-browser
same err.txt "$want_glog"
nothing_left
run 1 glogonly.log --summary
same err.txt "$want_glog"
same out.txt ""
run 1 glogonly.log --fail-on any --no-browser
same err.txt "$want_glog"
nothing_left

# --- a user's folder is never lost: an existing output folder stays as it was
mkdir mine && echo precious >mine/keep.txt
run 1 data.bin -o mine --overwrite --no-browser
same err.txt "$why_bin"
same mine/keep.txt precious
[ "$(ls -A mine)" = keep.txt ] && ok || bad "mine holds $(ls -A mine)"
run 1 glogonly.log -o mine --overwrite --no-browser
same mine/keep.txt precious
[ "$(ls -A mine)" = keep.txt ] && ok || bad "mine holds $(ls -A mine)"
run 1 data.bin -o mine --no-browser # without --overwrite: the log is refused first
same err.txt "$why_bin"

# --- a real log with damaged lines is still read, with warnings, as always
{
    printf 'some junk before the trace\n'
    trace
    printf '\x00\x01\x02 binary junk\n'
    printf '%s{"frame_id": 0, "oops"\n' "$P"
} >damaged.log
run 0 damaged.log -o o --no-browser
has err.txt "tlparse: warning: damaged.log:1: Failed to parse glog prefix"
has err.txt "tlparse: warning: damaged.log:9: Failed to parse glog prefix"
has err.txt "tlparse: warning: damaged.log:10: Failed to parse metadata JSON: unexpected end of input at column 23"
has err.txt "Stats { ok: 5, fail_glog: 2, fail_json: 1 }"
exists o/index.html
rm -rf o
# an empty log is still an (empty) report
: >empty.log
run 0 empty.log -o o --no-browser
has err.txt "tlparse: warning: empty.log is empty: the report has nothing in it"
exists o/index.html
rm -rf o

# --- a log that holds nothing to check passes no check: --fail-on and --strict fail on it,
# with one line that names it, in every output mode (the report or diagnosis still given);
# without them it is read as before
printf '\n\n\n' >blank.log
entry '{"str": ["/w/m.py", 0]}' '' >strtab.log
printf '%s\n' "[2025-01-01 10:00:00,000] torch._dynamo.eval_frame: [INFO] nothing compiled" >quiet.txt
declare -A why=(
    [empty.log]="it is empty"
    [blank.log]="its 3 lines are blank"
    [strtab.log]="its 1 line holds a string table and no TORCH_TRACE entry"
    [quiet.txt]="its 1 line holds no compile id and no message tlparse reads"
)
for f in empty.log blank.log strtab.log quiet.txt; do
    for mode in --summary --json; do
        run 1 "$f" $mode --fail-on any
        same err.txt "tlparse: error: --fail-on: $f holds nothing to check: ${why[$f]}"
        [ -s out.txt ] && ok || bad "$f $mode --fail-on: no diagnosis on stdout"
        run 1 "$f" $mode --strict
        same err.txt "tlparse: error: --strict: $f holds nothing to check: ${why[$f]}"
        run 0 "$f" $mode
        hasnt err.txt "error"
    done
    run 1 "$f" -o o --fail-on graph-breaks --no-browser
    [ "$(grep -c 'error' err.txt)" = 1 ] && ok || bad "$f --fail-on: not one error: $(cat err.txt)"
    has err.txt "tlparse: error: --fail-on: $f holds nothing to check: ${why[$f]}"
    hasnt err.txt "is empty: the report has nothing in it" # the warning is the error now
    exists o/index.html
    rm -rf o
    run 1 "$f" -o o --strict --no-browser
    has err.txt "tlparse: error: --strict: $f holds nothing to check: ${why[$f]}"
    exists o/index.html
    rm -rf o
done
run 1 empty.log --export --summary --fail-on export
same err.txt "tlparse: error: --fail-on: empty.log holds nothing to check: it is empty"
run 0 empty.log --export --summary --strict # --strict checks nothing of an export trace
# a folder of rank logs: every empty rank is named; one with findings is judged too
mkdir ranks_empty ranks_mix
: >ranks_empty/dedicated_log_torch_trace_rank_0.log
: >ranks_empty/dedicated_log_torch_trace_rank_1.log
trace >ranks_mix/dedicated_log_torch_trace_rank_0.log
: >ranks_mix/dedicated_log_torch_trace_rank_1.log
run 1 ranks_empty --summary --fail-on any
same err.txt "tlparse: error: --fail-on: ranks_empty/dedicated_log_torch_trace_rank_0.log holds nothing to check: it is empty
tlparse: error: --fail-on: ranks_empty/dedicated_log_torch_trace_rank_1.log holds nothing to check: it is empty"
run 1 ranks_mix --json --fail-on any
same err.txt "tlparse: error: --fail-on: ranks_mix/dedicated_log_torch_trace_rank_1.log holds nothing to check: it is empty
tlparse: --fail-on: the 2 ranks have 1 failed compilation"
run 1 ranks_mix --summary --strict
same err.txt "tlparse: error: --strict: ranks_mix/dedicated_log_torch_trace_rank_1.log holds nothing to check: it is empty"
run 1 ranks_mix --all-ranks-html -o o --fail-on graph-breaks --no-browser
has err.txt "tlparse: error: --fail-on: ranks_mix/dedicated_log_torch_trace_rank_1.log holds nothing to check: it is empty"
[ "$(tail -1 err.txt)" = "tlparse: o/index.html: 2 ranks, 2 compile ids, 0 graph breaks, 0 recompiles, 1 failure" ] && ok ||
    bad "ranks_mix --all-ranks-html --fail-on: last line $(tail -1 err.txt)"
exists o/rank_1/index.html
rm -rf o
run 1 ranks_mix --all-ranks-html -o o --strict --no-browser
has err.txt "tlparse: error: --strict: ranks_mix/dedicated_log_torch_trace_rank_1.log holds nothing to check: it is empty"
hasnt err.txt "Something went wrong"
rm -rf o
run 0 ranks_mix --summary
hasnt err.txt "error"

# --- --strict means the same in every mode: exit 1 on bad lines, the answer still given
run 1 damaged.log -o o --strict --no-browser
has err.txt "tlparse: error: Something went wrong (--strict: the log has problems; see the Stats line)"
exists o/index.html
rm -rf o
run 1 damaged.log --summary --strict
has out.txt "tlparse diagnosis of damaged.log (torch_trace): 2 compile ids"
has err.txt "Stats { ok: 5, fail_glog: 2, fail_json: 1 }"
has err.txt "tlparse: error: Something went wrong (--strict: the log has problems; see the Stats line)"
run 1 damaged.log --json --strict
has out.txt '"schema": "tlparse-summary/1"'
python3 -c 'import json,sys; json.load(open("out.txt"))' || bad "--json --strict: stdout is not JSON"
has err.txt "tlparse: error: Something went wrong (--strict: the log has problems; see the Stats line)"
run 1 damaged.log --summary --strict --fail-on specializations
has err.txt "tlparse: error: Something went wrong"
run 0 damaged.log --summary # without --strict: read, warned, no error
hasnt err.txt "error"
trace >clean.log
run 0 clean.log --summary --strict
same err.txt ""
run 0 clean.log --json --strict
same err.txt ""

# --- a folder: only the files that are logs are taken, by what they hold
mkdir junk
cp data.bin junk/data.bin
cp notes.txt junk/notes.txt
run 1 junk --no-browser
same err.txt "tlparse: error: No log found in directory junk: none of its 2 files is a TORCH_TRACE log or TORCH_LOGS text (notes.txt: none of its 2 lines has a glog prefix or is a TORCH_LOGS message)"
nothing_left
run 1 junk --summary --fail-on any
has err.txt "tlparse: error: No log found in directory junk: none of its 2 files"
mkdir junk1 && cp data.bin junk1/
run 1 junk1 --json
same err.txt "tlparse: error: No log found in directory junk1: data.bin is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"
same out.txt ""
# a log among junk, older than the junk and named like no log: it is the one read
trace >junk/run_output.txt
touch -d '2020-01-01' junk/run_output.txt
run 0 junk --summary
same err.txt "tlparse: parsing junk/run_output.txt, the newest log in junk (2 other files skipped)"
has out.txt "tlparse diagnosis of junk/run_output.txt (torch_trace): 2 compile ids"
# junk named like a log does not win over a log either
cp data.bin junk/newest.log
run 0 junk --summary
same err.txt "tlparse: parsing junk/run_output.txt, the newest log in junk (3 other files skipped)"
# an empty file named like a log is a log (a process that compiled nothing yet), one named
# like anything else is not
mkdir e1 && : >e1/notes.txt && trace >e1/a.txt && touch -d '2020-01-01' e1/a.txt
run 0 e1 --summary
same err.txt "tlparse: parsing e1/a.txt, the newest log in e1 (1 other file skipped)"
: >e1/b.log
run 0 e1 --summary
has err.txt "tlparse: parsing e1/b.log, the newest log in e1 (2 other files skipped)"

# --- a truncated compressed log: what could be read, and a warning with the lines read
python3 - <<'PY' >long.log
import hashlib, random
r = random.Random(1)
P = 'V1121 10:00:00.000000 1 torch/x.py:1] '
for f in range(400):
    body = "\n".join("".join(chr(33 + r.randrange(90)) for _ in range(70)) for _ in range(20))
    md5 = hashlib.md5(body.encode()).hexdigest()
    print(P + '{"dynamo_start": {"stack": []}, "frame_id": %d, "frame_compile_id": 0, "attempt": 0}' % f)
    print(P + '{"dynamo_output_graph": {}, "frame_id": %d, "frame_compile_id": 0, "attempt": 0, "has_payload": "%s"}' % (f, md5))
    print("\n".join("\t" + l for l in body.split("\n")))
PY
gzip -c long.log >full.log.gz
head -c $(($(stat -c %s full.log.gz) / 2)) full.log.gz >cut.log.gz
# the lines zlib gives of it (the last one cut off counts)
n=$(python3 -c '
import zlib, sys
d = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(open("cut.log.gz", "rb").read())
print(d.count(b"\n") + (not d.endswith(b"\n")))')
run 0 cut.log.gz -o o --no-browser
has err.txt "tlparse: warning: cut.log.gz is truncated (its gzip data is cut off): only its first $n lines could be read"
exists o/index.html
ncid=$(grep -c '"frame_id"' <(python3 -c '
import zlib
print(zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(open("cut.log.gz", "rb").read()).decode(errors="replace"))' | grep dynamo_start))
has o/compile_directory.json "\"[$((ncid - 1))/0]\""
rm -rf o
run 0 cut.log.gz --summary
has err.txt "tlparse: warning: cut.log.gz is truncated (its gzip data is cut off): only its first $n lines could be read"
has out.txt "tlparse diagnosis of cut.log.gz (torch_trace): $ncid compile ids"
# --strict fails on it, in every mode
run 1 cut.log.gz --json --strict
has err.txt "is truncated (its gzip data is cut off)"
has err.txt "tlparse: error: "
# zstd
if zstd -q -c long.log >full.log.zst 2>/dev/null; then
    head -c $(($(stat -c %s full.log.zst) / 2)) full.log.zst >cut.log.zst
    run 0 cut.log.zst --summary
    if grep -qE '^tlparse: warning: cut.log.zst is truncated \(its zstd data is cut off\): only its first [0-9]+ lines could be read$' err.txt; then ok; else bad "cut.log.zst: $(cat err.txt)"; fi
    has out.txt "tlparse diagnosis of cut.log.zst (torch_trace): "
fi
# cut before its first line: nothing to read is an error
head -c 12 full.log.gz >tiny.log.gz
run 1 tiny.log.gz --no-browser
same err.txt "tlparse: error: tiny.log.gz is truncated (its gzip data is cut off) before its first line: nothing could be read"
nothing_left

# --- every run that writes a report ends with one line: where it is and what it found
run 0 clean.log -o o --no-browser
same err.txt "Stats { ok: 5 }
tlparse: o/index.html: 2 compile ids, 0 graph breaks, 0 recompiles, 1 failure"
rm -rf o
run 0 clean.log --bundle r.zip --no-browser
same err.txt "Stats { ok: 5 }
tlparse: r.zip: 2 compile ids, 0 graph breaks, 0 recompiles, 1 failure"
run 0 clean.log -o o --bundle r.html --no-browser
[ "$(tail -1 err.txt)" = "tlparse: o/index.html and r.html: 2 compile ids, 0 graph breaks, 0 recompiles, 1 failure" ] && ok ||
    bad "bundle and folder: $(tail -1 err.txt)"
rm -rf o r.zip r.html
# after --strict's error and --fail-on's verdict, the report is still named last
run 1 damaged.log -o o --strict --fail-on failures --no-browser
[ "$(tail -3 err.txt)" = "tlparse: error: Something went wrong (--strict: the log has problems; see the Stats line)
tlparse: --fail-on: the trace has 1 failed compilation
tlparse: o/index.html: 2 compile ids, 0 graph breaks, 0 recompiles, 1 failure" ] && ok || bad "strict: $(tail -3 err.txt)"
rm -rf o
run 1 clean.log -o o --fail-on failures --no-browser
[ "$(tail -2 err.txt)" = "tlparse: --fail-on: the trace has 1 failed compilation
tlparse: o/index.html: 2 compile ids, 0 graph breaks, 0 recompiles, 1 failure" ] && ok || bad "fail-on: $(tail -2 err.txt)"
rm -rf o
# --summary and --json: their output is the answer; stderr stays empty
run 0 clean.log --summary
same err.txt ""
run 0 clean.log --json
same err.txt ""

# --- a folder of rank logs, in every mode
mkdir ranks
{
    entry '{"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}' ''
    entry '{"dynamo_output_graph": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "@MD5@"}' "graph 0"
} >ranks/dedicated_log_torch_trace_rank_0.log
trace >ranks/dedicated_log_torch_trace_rank_1.log
touch -d '2020-01-01' ranks/dedicated_log_torch_trace_rank_1.log
want_head="tlparse diagnosis of 2 ranks in ranks: 3 compile ids, 0 graph breaks, 0 recompiles, 1 failure

  Rank 1 failed to compile; Rank 0 did not.

=== rank 0 (dedicated_log_torch_trace_rank_0.log) ===
tlparse diagnosis of ranks/dedicated_log_torch_trace_rank_0.log (torch_trace): 1 compile id"
# --summary answers for every rank: across them first, then each rank's own diagnosis
run 0 ranks --summary
[ "$(head -6 out.txt)" = "$want_head" ] && ok || bad "ranks --summary: $(head -8 out.txt)"
has out.txt "=== rank 1 (dedicated_log_torch_trace_rank_1.log) ===
tlparse diagnosis of ranks/dedicated_log_torch_trace_rank_1.log (torch_trace): 2 compile ids"
same err.txt ""
# the same with --all-ranks-html (no longer refused), and in one thread
"$bin" ranks --summary --all-ranks-html -j 1 >out2.txt 2>err.txt
cmp -s out.txt out2.txt && ok || bad "--all-ranks-html --summary differs: $(diff out.txt out2.txt | head -5)"
# --json: tlparse-ranks-diagnosis/1, each rank's tlparse-summary/1 in it
run 0 ranks --json
python3 - out.txt <<'PY' || bad "ranks --json: $(head -c 300 out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "tlparse-ranks-diagnosis/1", d["schema"]
assert d["source"] == {"path": "ranks", "kind": "torch_trace_ranks"}, d["source"]
t = d["totals"]
assert (t["ranks"], t["ranks_read"], t["compile_ids"], t["failures"]) == (2, 2, 3, 1), t
assert d["divergences"] == [{"what": "failed to compile", "ranks": [1], "others": [0]}], d["divergences"]
assert [(r["rank"], r["log"], r["error"]) for r in d["ranks"]] == [
    (0, "dedicated_log_torch_trace_rank_0.log", None), (1, "dedicated_log_torch_trace_rank_1.log", None)]
assert d["ranks"][1]["diagnosis"]["schema"] == "tlparse-summary/1"
assert len(d["ranks"][1]["diagnosis"]["failures"]) == 1
PY
same err.txt ""
# --fail-on answers for every rank: with --summary, and with a report of the newest log
run 1 ranks --summary --fail-on failures
same err.txt "tlparse: --fail-on: the 2 ranks have 1 failed compilation"
run 0 ranks --summary --fail-on graph-breaks
run 1 ranks -o o --fail-on failures --no-browser
same err.txt "tlparse: parsing ranks/dedicated_log_torch_trace_rank_0.log, the newest log in ranks (1 other file skipped)
tlparse: ranks holds the logs of 2 ranks; this report is of the newest (--all-ranks-html reports on all)
Stats { ok: 2 }
tlparse: --fail-on: the 2 ranks have 1 failed compilation
tlparse: o/index.html: the newest of the logs of 2 ranks, 1 compile id, 0 graph breaks, 0 recompiles, 0 failures"
rm -rf o
run 1 ranks --all-ranks-html -o o --fail-on failures --no-browser
[ "$(tail -2 err.txt)" = "tlparse: --fail-on: the 2 ranks have 1 failed compilation
tlparse: o/index.html: 2 ranks, 3 compile ids, 0 graph breaks, 0 recompiles, 1 failure" ] && ok || bad "all-ranks fail-on: $(tail -2 err.txt)"
rm -rf o
# --latest still means the newest log alone
run 0 ranks --latest --summary
has out.txt "tlparse diagnosis of ranks/dedicated_log_torch_trace_rank_0.log (torch_trace): 1 compile id"
# a rank log that is no log: said, counted, and --fail-on does not pass
cp data.bin ranks/dedicated_log_torch_trace_rank_2.log
run 1 ranks --summary
same err.txt "tlparse: error: rank 2: ranks/dedicated_log_torch_trace_rank_2.log is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"
has out.txt "tlparse diagnosis of 3 ranks in ranks: 3 compile ids"
has out.txt "  Rank 2 was not read: ranks/dedicated_log_torch_trace_rank_2.log is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"
run 1 ranks --json --fail-on graph-breaks
python3 -c 'import json,sys; d=json.load(open("out.txt")); assert d["totals"]["ranks_read"] == 2 and d["ranks"][2]["error"] and d["ranks"][2]["diagnosis"] is None' ||
    bad "ranks --json with a broken rank: $(head -c 300 out.txt)"
run 1 ranks --all-ranks-html -o o --fail-on graph-breaks --no-browser
has err.txt "tlparse: warning: rank 2: ranks/dedicated_log_torch_trace_rank_2.log is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary; it has no report"
[ "$(tail -2 err.txt)" = "tlparse: --fail-on: 1 rank could not be read
tlparse: o/index.html: 2 ranks (and 1 not read), 3 compile ids, 0 graph breaks, 0 recompiles, 1 failure" ] && ok || bad "all-ranks broken: $(tail -2 err.txt)"
[ "$(ls o/rank_2)" = summary.json ] && ok || bad "o/rank_2 holds $(ls o/rank_2)"
rm -rf o
# options that do nothing there are refused
run 2 ranks --summary -o o
same err.txt "tlparse: error: cannot use -o with --summary or --json (they write no report)"
run 2 ranks --all-ranks-html --from-summaries --json
same err.txt "tlparse: error: cannot use --summary or --json with --from-summaries (it writes the landing page)"
nothing_left

summary_line wronginput
