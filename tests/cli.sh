#!/usr/bin/env bash
# CLI behaviour: flags, exit codes, exact messages, output-folder safety.
# Usage: tests/cli.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, new_tmp; counts checks (ok, bad, run, has, hasnt, same, exists, absent); entry
bin=$(realpath "$1")
demo="$here/fixtures/demo.log"
new_tmp
cd "$tmp" || exit 1

# --- version and help
# the version, and the revision of a build from a git checkout (none from a bare tree)
version_re='^tlparse 0\.4\.3( \(revision [0-9a-f]{12}(-dirty)?\))?$'
run 0 --version
if grep -Eq "$version_re" out.txt && [ "$(wc -l <out.txt)" = 1 ]; then ok; else bad "--version printed '$(cat out.txt)'"; fi
if git -C "$here" rev-parse HEAD >/dev/null 2>&1; then has out.txt "(revision $(git -C "$here" rev-parse --short=12 HEAD)"; fi
run 0 -V
if grep -Eq "$version_re" out.txt; then ok; else bad "-V printed '$(cat out.txt)'"; fi
run 0 --help
has out.txt "Usage: tlparse [OPTIONS] <PATH>"
has out.txt "--custom-header-html <HTML>"
has out.txt "  -o <OUT>  "
same err.txt ""
# every line of the help fits 100 columns, tlparse's and tlparse diff's
for h in --help "diff --help"; do
    # shellcheck disable=SC2086
    "$bin" $h >help.txt 2>&1
    wide=$(awk 'length($0) > 100' help.txt)
    if [ -z "$wide" ]; then ok; else bad "tlparse $h: lines over 100 columns: $wide"; fi
done

# --- options that do nothing in a mode are refused (exit 2), and nothing is written
for o in "-o x" "--overwrite" "--custom-header-html <b>" "--plain-text" "--inductor-provenance" "-p" "-i"; do
    for m in --summary --json; do
        # shellcheck disable=SC2086
        "$bin" "$demo" $m $o >out.txt 2>err.txt
        [ $? = 2 ] && ok || bad "$m $o: not exit 2"
        name=${o%% *}
        case $name in -p) name=--plain-text ;; -i) name=--inductor-provenance ;; esac
        has err.txt "tlparse: error: cannot use $name with --summary or --json (they write no report)"
        same out.txt ""
    done
done
absent x
absent tl_out

# --- usage errors exit 2
run 2
has err.txt "tlparse: error: the following required argument was not provided: <PATH>"
run 2 --out x "$demo"
has err.txt "tlparse: error: unexpected argument --out"
run 2 "$demo" -o
has err.txt "tlparse: error: a value is required for -o <OUT>"
run 2 "$demo" "$demo"
has err.txt "unexpected argument"

# --- tlparse diff: its arguments, exit codes and messages (tests/diff_check.py checks what
# it finds, its outputs and --fail-on)
run 0 --help
has out.txt "tlparse diff [OPTIONS] <BEFORE> <AFTER>   (see tlparse diff --help)"
for h in --help -h; do
    run 0 diff "$h"
    has out.txt "Usage: tlparse diff [OPTIONS] <BEFORE> <AFTER>"
    for o in "-o <OUT>" --overwrite --summary --json "--fail-on <KINDS>" --no-browser "-h, --help"; do
        has out.txt "  $o"
    done
    has out.txt "new-failures,"
    has out.txt "slower:PCT"
    same err.txt ""
done
# diff_usage WANT ARGS...: `tlparse diff ARGS` is a usage error: exit 2, WANT and the usage
diff_usage() {
    local want=$1
    shift
    run 2 diff "$@"
    same out.txt ""
    has err.txt "tlparse: error: $want"
    has err.txt "Usage: tlparse diff [OPTIONS] <BEFORE> <AFTER>"
    has err.txt "For more information, try 'tlparse diff --help'."
}
diff_usage "the following required arguments were not provided: <BEFORE> <AFTER>"
diff_usage "the following required arguments were not provided: <AFTER>" "$demo"
diff_usage "unexpected argument c" a b c
diff_usage "unexpected argument --out" --out x "$demo" "$demo"
diff_usage "unexpected argument --latest" --latest "$demo" "$demo" # tlparse's own options
diff_usage "a value is required for -o <OUT>" "$demo" "$demo" -o
diff_usage "a value is required for --fail-on <KINDS>" "$demo" "$demo" --fail-on
diff_usage "a value is required for --fail-on <KINDS>" --fail-on= "$demo" "$demo"
for k in graph-breaks slower: slower:-5 slower:x 'new,' ,new; do # graph-breaks: tlparse's kind
    diff_usage "--fail-on wants a comma-separated list of new-failures, new-recompiles, new-graph-breaks, new-specializations, new, slower:PCT; not $k" \
        --fail-on "$k" "$demo" "$demo"
done
diff_usage "cannot use -o with --summary or --json (they write no folder)" --json -o x "$demo" "$demo"
diff_usage "cannot use -o with --summary or --json (they write no folder)" --summary -ox "$demo" "$demo"
absent tl_diff
absent x
run 2 diff - - </dev/null
has err.txt "tlparse: error: only one side of a diff can be standard input"
# the forms of the options: -oOUT, -o=OUT, --fail-on=KINDS, PCT%, -- before a side named -*
run 0 diff --summary --fail-on=new,slower:20% "$demo" "$demo"
has out.txt "tlparse diff: $demo (torch_trace) -> $demo (torch_trace)"
cp "$demo" ./-demo.log
run 0 diff --json -- -demo.log "$demo"
has out.txt '"schema": "tlparse-diff/1"'
run 0 diff --no-browser -odiff1 "$demo" "$demo"
exists diff1/index.html
run 0 diff --no-browser -o=diff2 "$demo" "$demo"
exists diff2/index.html
# the default folder, tl_diff; never replaced without --overwrite
run 0 diff --no-browser "$demo" ./-demo.log
same out.txt ""
has err.txt "tlparse: the diff is tl_diff/index.html"
for f in index.html diff.json before/index.html after/index.html; do exists "tl_diff/$f"; done
run 1 diff --no-browser "$demo" "$demo"
has err.txt "tlparse: error: Directory tl_diff already exists; pass --overwrite to replace it"
run 0 diff --no-browser --overwrite "$demo" "$demo"
# "diff" is the subcommand only as the first argument: a log named diff is ./diff, and
# "diff" after an option is a PATH
cp "$demo" diff
run 2 diff
has err.txt "Usage: tlparse diff"
run 0 ./diff --summary
run 0 --summary diff
rm -rf diff1 diff2 tl_diff ./-demo.log diff
# export mode on a compile trace: the export report finds no export problem but the
# compilation that failed, so no graph was produced (tests/export.sh has the rest); -i adds a
# provenance page per compile folder, listed on the index
run 0 "$demo" --export -o e --no-browser
has e/index.html "<strong>Export failed</strong>: 1 compilation raised an error"
! grep -q "No issues were found" e/index.html || bad "e/index.html: no issues, though it failed"
absent e/compile_directory.json
run 0 "$demo" -i -o p --no-browser
exists "p/provenance_tracking_-_0_0_0.html"
has p/index.html "<h2>Provenance Tracking</h2>"
has p/index.html "<a href='provenance_tracking_-_0_0_0.html'>provenance_tracking_-_0_0_0</a>"
run 1 "$tmp" --latest --all-ranks-html -o e --no-browser
has err.txt "tlparse: error: --latest cannot be used with --all-ranks-html"

# --- a normal run
run 0 "$demo" -o out1 --no-browser
same out.txt ""
# the reference's Stats line as it was, then one line: where the report is, what it found
same err.txt "Stats { ok: 161 }
tlparse: out1/index.html: 5 compile ids, 1 graph break, 1 recompile, 1 failure"
for f in index.html compile_directory.json failures_and_restarts.html chromium_events.json \
    raw.jsonl raw.log -_0_0_0/dynamo_output_graph_0.txt dump_file/eval_with_key_3.html; do
    exists "out1/$f"
done
if cmp -s "$demo" out1/raw.log; then ok; else bad "raw.log differs from the input"; fi
absent "$(ls -d .out1.tlparse-* 2>/dev/null | head -1)"

# -o forms: -oDIR, -o=DIR
run 0 "$demo" -oout2 --no-browser
exists out2/index.html
run 0 "$demo" -o=out3 --no-browser
exists out3/index.html

# --- an existing output folder is never touched without --overwrite
mkdir keep && echo precious >keep/mine.txt
run 1 "$demo" -o keep --no-browser
same err.txt "tlparse: error: Directory keep already exists; pass --overwrite to replace it or use -o OUTDIR"
same keep/mine.txt precious
absent keep/index.html
run 0 "$demo" -o keep --overwrite --no-browser
exists keep/index.html
absent keep/mine.txt
echo notadir >afile
run 1 "$demo" -o afile --overwrite --no-browser
has err.txt "afile exists and is not a folder; not replacing it"
same afile notadir

# --- missing input: exit 1 and no output folder
run 1 missing.log -o out4 --no-browser
same err.txt "tlparse: error: cannot open missing.log: No such file or directory"
absent out4

# --- folders and --latest
mkdir logs
cp "$demo" logs/old.log
entry '{"dynamo_output_graph": {}, "frame_id": 7, "frame_compile_id": 0, "attempt": 0, "has_payload": "@MD5@"}' 'graph()' >logs/new.log
touch -d '2020-01-01' logs/old.log
run 0 logs -o out5 --no-browser
has err.txt "tlparse: parsing logs/new.log, the newest log in logs (1 other file skipped)"
exists out5/-_7_0_0/dynamo_output_graph_0.txt
run 0 logs --latest -o out6 --no-browser
exists out6/-_7_0_0/dynamo_output_graph_0.txt
run 1 "$demo" --latest -o out7 --no-browser
has err.txt "is not a directory (required when using --latest)"
absent out7
mkdir empty
run 1 empty -o out8 --no-browser
same err.txt "tlparse: error: No files found in directory empty"
# a folder of one log: no "(0 other files skipped)"; PATH and -o with trailing slashes name
# the same folders, and every path shown has one slash between folder and file
mkdir one
cp "$demo" one/run.log
run 0 one/ -o out9/ --no-browser
same err.txt "tlparse: parsing one/run.log, the only file in one
Stats { ok: 161 }
tlparse: out9/index.html: 5 compile ids, 1 graph break, 1 recompile, 1 failure"
run 0 one// --summary
same err.txt "tlparse: parsing one/run.log, the only file in one"
has out.txt "tlparse diagnosis of one/run.log (torch_trace)"
mkdir ranks2
cp "$demo" ranks2/dedicated_log_torch_trace_rank_0.log
cp "$demo" ranks2/dedicated_log_torch_trace_rank_1.log
run 0 ranks2/ --all-ranks-html -o out10/ --no-browser
has err.txt "Processing rank 0 → out10/rank_0"
has err.txt "tlparse: out10/index.html: 2 ranks,"
hasnt err.txt "//"
# counts in words: one rank, one failure; never "rank(s)"
has out10/index.html "This run covers <strong>2</strong> ranks. Click on a rank"
mkdir ranks1
cp "$demo" ranks1/dedicated_log_torch_trace_rank_0.log
run 0 ranks1 --all-ranks-html -o out11 --no-browser
has out11/index.html "This run covers <strong>1</strong> rank. Click on a rank"
{
    entry '{"dynamo_start": {"stack": []}, '"$CID"'}' ''
    entry '{"compilation_metrics": {"fail_type": "BackendCompilerFailed", "fail_reason": "boom"}, '"$CID"'}' ''
} >onefail.log
run 0 onefail.log -o out12 --no-browser
has out12/index.html 'This run had <strong><a href="failures_and_restarts.html">1 restart or compilation failure</a></strong>.'
counted='[0-9](</strong>)? [a-z/ ]*[a-z][(]s[)]' # "2</strong> rank(s)", "1 restart(s) and/or"
grep -rEq "$counted" out10 out11 out12 && bad "a count with (s): $(grep -rEho "$counted" out10 out11 out12 | sort -u)" || ok
run 0 ranks2/ --summary
has out.txt "=== rank 0 (dedicated_log_torch_trace_rank_0.log) ==="
has out.txt "tlparse diagnosis of ranks2/dedicated_log_torch_trace_rank_0.log (torch_trace)"
hasnt out.txt "//"

# --- a report folder: --summary and --json give the diagnosis its summary.json holds (not the
# diagnosis of its raw.log again), --fail-on judges it; a folder it cannot read says why
"$bin" "$demo" --summary >demo_summary.txt 2>/dev/null
run 0 out1/ --summary
same err.txt ""
head -1 out.txt >head.txt
same head.txt "tlparse diagnosis of $demo, from its report out1 (torch_trace): 5 compile ids, 1.64 s compiling"
tail -n +2 out.txt | cmp -s - <(tail -n +2 demo_summary.txt) && ok || bad "out1 --summary differs from the log's"
run 0 out1 --json
same err.txt ""
cmp -s out.txt out1/summary.json && ok || bad "out1 --json is not out1/summary.json"
run 1 out1 --summary --fail-on failures,recompiles
same err.txt "tlparse: --fail-on: the trace has 1 failed compilation, 1 recompile"
run 0 out1 --json --fail-on export
"$bin" "$demo" --redact -o redacted --no-browser >/dev/null 2>&1
absent redacted/raw.log
run 0 redacted --summary # no log in it to read again: its summary.json is read
has out.txt ", from its report redacted (torch_trace): 5 compile ids"
cp -r out1 noreport && rm noreport/summary.json
run 1 noreport --summary
same err.txt "tlparse: error: noreport is a report folder without a summary.json (the reference tlparse writes none): read its log instead, noreport/raw.log"
same out.txt ""
rm noreport/raw.log
run 1 noreport --json
same err.txt "tlparse: error: noreport is a report folder without a summary.json (the reference tlparse writes none): read the log it was made from instead"
cp -r out1 other && printf '{"schema": "tlparse-summary/9"}\n' >other/summary.json
run 1 other --summary
same err.txt 'tlparse: error: other/summary.json is of the schema "tlparse-summary/9", not tlparse-summary/1 (made by another version of tlparse?)'
printf 'no json\n' >other/summary.json
run 1 other --json --fail-on any
same err.txt 'tlparse: error: other/summary.json is not JSON (at byte 0: expected value)'
run 0 ranks2 --all-ranks-html -o mranks --no-browser
run 1 mranks --summary
same err.txt "tlparse: error: mranks is a multi-rank report (tlparse-ranks/1): give the report of one of its ranks, mranks/rank_N"
run 0 mranks/rank_1 --summary
has out.txt "tlparse diagnosis of dedicated_log_torch_trace_rank_1.log, from its report mranks/rank_1 (torch_trace): 5 compile ids"

# same_report A B: the two reports are equal but for the input's name in summary.json, and
# what says how they were made (the index's footer, summary.json's generated_by: the command
# lines differ), taken out of copies by strip_runinfo.py
same_report() {
    rm -rf "$1.cmp" "$2.cmp" && cp -r "$1" "$1.cmp" && cp -r "$2" "$2.cmp" &&
        python3 "$here/strip_runinfo.py" "$1.cmp" "$2.cmp" &&
        diff -r -x summary.json "$1.cmp" "$2.cmp" >/dev/null &&
        diff <(grep -v '"path": ' "$1.cmp/summary.json") <(grep -v '"path": ' "$2.cmp/summary.json") >/dev/null
}
# same_run A B: two runs on the same input wrote the same report, but for how they were run
same_run() {
    rm -rf "$1.cmp" "$2.cmp" && cp -r "$1" "$1.cmp" && cp -r "$2" "$2.cmp" &&
        python3 "$here/strip_runinfo.py" "$1.cmp" "$2.cmp" && diff -r "$1.cmp" "$2.cmp" >/dev/null
}

# --- compressed input gives the same report
gzip -c "$demo" >demo.log.gz
zstd -q -c "$demo" >demo.log.zst
run 0 demo.log.gz -o outgz --no-browser
if same_report out1 outgz; then ok; else bad "report of demo.log.gz differs from demo.log"; fi
if [ -s demo.log.zst ]; then
    run 0 demo.log.zst -o outzst --no-browser
    if same_report out1 outzst; then ok; else bad "report of demo.log.zst differs"; fi
fi

# --- a pipe is read like the file; a compressed stream in a pipe is refused by name
run 0 <(cat "$demo") -o outpipe --no-browser
if same_report out1 outpipe; then ok; else bad "report of a piped demo.log differs"; fi
run 1 <(gzip -c "$demo") -o outpipegz --no-browser
has err.txt ": compressed input is read from files only; decompress it into the pipe (zcat or zstdcat)"
absent outpipegz

# --- a compressed log is the newest in a folder: it is the one parsed
mkdir zlogs
cp "$demo" zlogs/a.log
touch -d '2020-01-01' zlogs/a.log
entry '{"dynamo_output_graph": {}, "frame_id": 8, "frame_compile_id": 0, "attempt": 0, "has_payload": "@MD5@"}' 'graph()' | zstd -q -c >zlogs/b.log.zst
run 0 zlogs -o outz --no-browser
has err.txt "tlparse: parsing zlogs/b.log.zst, the newest log in zlogs (1 other file skipped)"
exists outz/-_8_0_0/dynamo_output_graph_0.txt

# --- a grown log (thousands of files): the same report with the helper threads on or
# off, and with the progress bar forced on (it writes to stderr only)
python3 "$here/../scripts/grow_trace.py" --size-mb 8 -o grown.log "$demo" 2>/dev/null
run 0 grown.log -o grown1 --no-browser --no-progress
TLPARSE_NO_THREADS=1 "$bin" grown.log -o grown2 --no-browser --no-progress >/dev/null 2>&1
if same_run grown1 grown2; then ok; else bad "grown.log: the report differs without threads"; fi
run 0 grown.log -o grown3 --no-browser --progress
if same_run grown1 grown3; then ok; else bad "grown.log: the report differs with --progress"; fi
has err.txt " / 8.4 MB  "
n=$(find grown1 -type f | wc -l)
if [ "$n" -gt 1000 ]; then ok; else bad "grown.log made only $n files"; fi

# --- bad lines are reported with file:line, counted, and the report is written
{
    printf 'not a trace line\n'
    entry '{"dynamo_output_graph": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "@MD5@"}' 'g'
    printf 'V1121 10:00:00.000000 1 torch/x.py:1] {"frame_id": 0, "oops"\n'
    printf 'V1121 10:00:00.000000 1 torch/x.py:1] {"dynamo_output_graph": {}, "has_payload": "00000000000000000000000000000000"}\n\tpayload\n'
} >bad.log
run 0 bad.log -o outbad --no-browser
has err.txt "tlparse: warning: bad.log:1: Failed to parse glog prefix"
has err.txt "tlparse: warning: bad.log:4: Failed to parse metadata JSON: unexpected end of input at column 23"
has err.txt "tlparse: warning: bad.log:5: payload md5 mismatch"
has err.txt "Stats { ok: 2, fail_glog: 1, fail_json: 1, fail_payload_md5: 1 }"
exists outbad/index.html
exists outbad/-_0_0_0/dynamo_output_graph_0.txt
run 1 bad.log -o outbad2 --no-browser --strict
has err.txt "tlparse: error: Something went wrong"
exists outbad2/index.html

# --- --strict-compile-id fires only for ill-typed compile ids
entry '{"dynamo_output_graph": {}, "frame_id": "x", "has_payload": "@MD5@"}' 'g' >nocid.log
run 1 nocid.log -o outcid --no-browser --strict-compile-id
has err.txt "tlparse: error: Some log entries did not have compile id"
exists outcid/unknown_1/dynamo_output_graph_0.txt
run 0 nocid.log -o outcid2 --no-browser

# --- unknown fields
entry '{"brand_new_thing": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}' '' | head -1 >unk.log
run 0 unk.log -o outunk --no-browser -v
has err.txt "Unknown field brand_new_thing"
has err.txt 'Unknown fields: {"brand_new_thing"} (consider updating tlparse to render these)'
has err.txt "Stats { ok: 1, unknown: 1 }"

# --- --plain-text and the custom header
run 0 "$demo" -o outp --no-browser -p --custom-header-html '<b id="hdr">Team run</b>'
exists outp/-_0_0_0/inductor_output_code_crkky56anna7ciap2v7y2yvk2j34oeebgtiqvs4p5v6sveuzypyr_8.txt
has outp/index.html '<b id="hdr">Team run</b>'

# --- a compile id repeated many times: metrics pages stay small (linear output)
python3 "$here/../bench/make_many_ids.py" 100 rep.log --repeat
run 0 rep.log -o outrep --no-browser
# each compilation adds 2 files (graph, metrics page); page 65 has 64 earlier files and
# lists them all, as the reference does
n=$(grep -c '<li><a href=' outrep/-_0_0_0/compilation_metrics_65.html)
same <(echo "$n") 65
# page 67: 65 earlier files are past the limit: it lists what came since page 65 was
# written (page 65 itself and its own graph) and points at the index
n=$(grep -c '<li><a href=' outrep/-_0_0_0/compilation_metrics_67.html)
same <(echo "$n") 2
has outrep/-_0_0_0/compilation_metrics_67.html '65 earlier files of this compile id are listed in <a href="index.html#[0/0]">the index</a>.'

# --- empty input
: >empty.log
run 0 empty.log -o outempty --no-browser
same outempty/compile_directory.json "{}"
same outempty/chromium_events.json "[]"
same outempty/raw.jsonl '{"string_table":[null]}'

# --- stdout and stderr that cannot be written (coreutils' close_stdout): a write to stdout that
# failed (a full disk, a closed stdout) is exit 1 and one message on stderr; a reader that went
# away ends tlparse as SIGPIPE does, quietly, also when SIGPIPE is ignored; a failed stderr is
# exit 1 (it cannot be said).
full_msg="tlparse: error: cannot write to stdout: No space left on device"
for args in "$demo --json" "$demo --summary" "--help" "-V" "--version" "diff $demo $demo --json" \
    "diff $demo $demo --summary" "diff --help"; do
    # shellcheck disable=SC2086
    "$bin" $args >/dev/full 2>err.txt
    rc=$?
    if [ "$rc" = 1 ]; then ok; else bad "tlparse $args >/dev/full: exit $rc, want 1"; fi
    same err.txt "$full_msg"
done
# a --json larger than stdio's buffer, which stdio writes past it (no flush left to fail)
"$bin" "$here/fixtures/canary.log" --json >/dev/full 2>err.txt
[ $? = 1 ] && ok || bad "--json (large) >/dev/full: not exit 1"
same err.txt "$full_msg"
"$bin" "$here/fixtures/canary.log" --json 2>/dev/null | wc -c >size.txt
[ "$(cat size.txt)" -gt 8192 ] && ok || bad "canary.log's --json is $(cat size.txt) bytes: no larger than stdio's buffer"
# --fail-on eager: a frame that ran in eager mode (bump compiled 3 times, the recompile_limit
# its dynamo config sets) fails the check, with or without a report; a log without one passes
limit="$here/fixtures/pt213_trace_limit.log"
run 1 "$limit" --summary --fail-on eager
same err.txt "tlparse: --fail-on: the trace has 1 frame run in eager mode"
has out.txt "  frame 0 bump (/home/ana/w/bump.py:9): 3 cache entries, 0 recompiles left before recompile_limit = 3 (the log's dynamo config)"
has out.txt "     RAN IN EAGER MODE: the recompile limit was hit"
run 1 "$limit" --json --fail-on eager,recompiles
same err.txt "tlparse: --fail-on: the trace has 1 frame run in eager mode, 2 recompiles"
run 1 "$limit" -o eager_out --no-browser --fail-on eager
has err.txt "tlparse: --fail-on: the trace has 1 frame run in eager mode"
exists eager_out/index.html
run 0 "$demo" --summary --fail-on eager
same err.txt ""
run 2 "$demo" --summary --fail-on eagerly
has err.txt "tlparse: error: --fail-on wants a comma-separated list of graph-breaks, recompiles, failures, specializations, export, eager or any, not eagerly"

# --fail-on keeps its own exit code and message; the failed write is said too
"$bin" "$demo" --summary --fail-on any >/dev/full 2>err.txt
[ $? = 1 ] && ok || bad "--summary --fail-on any >/dev/full: not exit 1"
has err.txt "tlparse: --fail-on: the trace has 1 failed compilation"
has err.txt "$full_msg"
# a closed stdout: said when something was to be written there, else nothing to say
"$bin" "$demo" --json >&- 2>err.txt
[ $? = 1 ] && ok || bad "--json >&-: not exit 1"
same err.txt "tlparse: error: cannot write to stdout: Bad file descriptor"
"$bin" "$demo" -o closed_out --no-browser >&- 2>err.txt
[ $? = 0 ] && ok || bad "a report with stdout closed: not exit 0: $(cat err.txt)"
# a reader gone: killed by SIGPIPE (141), nothing said, with SIGPIPE ignored by the parent too
python3 - "$bin" "$demo" <<'PY' || bad "a closed pipe on stdout"
import os, subprocess, sys
for ignored in (False, True):
    r, w = os.pipe()
    os.close(r)  # the reader is gone before tlparse writes
    p = subprocess.run([sys.argv[1], sys.argv[2], "--json"], stdout=w, stderr=subprocess.PIPE,
                       restore_signals=not ignored)  # python ignores SIGPIPE: inherited
    os.close(w)
    assert p.returncode == -13 and p.stderr == b"", (ignored, p.returncode, p.stderr)
PY
# stderr: a report whose messages cannot be written is exit 1, without a word
"$bin" "$demo" -o full_err --no-browser 2>/dev/full >out.txt
[ $? = 1 ] && ok || bad "a report with stderr on /dev/full: not exit 1"
exists full_err/index.html
same out.txt ""
# nothing written to stderr: nothing failed
"$bin" "$demo" --json 2>/dev/full >out.txt
[ $? = 0 ] && ok || bad "--json with stderr on /dev/full, nothing said there: not exit 0"

summary_line cli
