#!/usr/bin/env bash
# tlparse where people use it: in CI (--fail-on), around a training command (--run), at a
# terminal with or without a display (opening the browser), and the rough edges a new user
# meets first (standard input, a folder with other files, an empty log, -o naming a file).
# Exact exit codes and messages. Usage: tests/workflow.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, new_tmp; counts checks (ok, bad, run, has, hasnt, same, exists, absent)
show=600 show_file=600 # a failed run or has shows 600 bytes, not 400
bin=$(realpath "$1")
demo="$here/fixtures/demo.log"
edge="$here/fixtures/edge.log"
new_tmp
cd "$tmp" || exit 1
export TMPDIR=$tmp/tmpdir
mkdir "$TMPDIR"
unset DISPLAY WAYLAND_DISPLAY BROWSER

# --- --fail-on: the demo has 1 failed compilation, 1 graph break, 1 recompile, 1
# specialization and no export problem
run 1 --summary --fail-on graph-breaks,recompiles,failures "$demo"
same err.txt "tlparse: --fail-on: the trace has 1 failed compilation, 1 graph break, 1 recompile"
has out.txt "tlparse diagnosis of"
run 1 --json --fail-on specializations "$demo"
same err.txt "tlparse: --fail-on: the trace has 1 specialization"
run 0 --json --fail-on export "$demo"
same err.txt ""
run 1 --fail-on any "$demo" -o rep --no-browser
has err.txt "tlparse: --fail-on: the trace has 1 failed compilation, 1 graph break, 1 recompile, 1 specialization"
exists rep/index.html # the report is written all the same
run 2 --fail-on graph-breaks,bogus "$demo"
has err.txt "tlparse: error: --fail-on wants a comma-separated list of graph-breaks, recompiles, failures, specializations, export, eager or any, not graph-breaks,bogus"
run 2 --fail-on "" "$demo"
# a trace without any of them passes
printf 'V1121 10:00:00.000000 1 torch/x.py:1] {"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}\n' >clean.log
run 0 --summary --fail-on any clean.log
same err.txt ""
# TORCH_LOGS text: the same counts
printf '%s\n' "V1121 10:00:00.000123 7 torch/_dynamo/guards.py:2] [0/1] [__recompiles] Recompiling function forward in /m.py:15" \
    "    triggered by the following guard failure(s):" \
    "    - 0/0: tensor 'x' size mismatch at index 0. expected 8, actual 4" >recompiles.txt
run 1 --summary --fail-on recompiles recompiles.txt
same err.txt "tlparse: --fail-on: the trace has 1 recompile"
# all ranks: the counts of every rank, summed
mkdir ranks
cp "$demo" ranks/dedicated_log_torch_trace_rank_0_a.log
cp "$demo" ranks/dedicated_log_torch_trace_rank_1_b.log
run 1 --all-ranks-html ranks -o mr --fail-on graph-breaks --no-browser
has err.txt "tlparse: --fail-on: the 2 ranks have 2 graph breaks"

# --- --run: the command's trace becomes the report
cat >writer.sh <<EOF
#!/bin/sh
# A stand-in for a training script: writes a trace where TORCH_TRACE says, then exits \$1.
[ -n "\$TORCH_TRACE" ] || exit 99
cp "$demo" "\$TORCH_TRACE/dedicated_log_torch_trace_9x.log"
exit \${1:-0}
EOF
chmod +x writer.sh
run 0 --run -- ./writer.sh 0
has err.txt "tlparse: running ./writer.sh with TORCH_TRACE=$TMPDIR/tlparse-run-"
has err.txt "tlparse: the trace is kept in $TMPDIR/tlparse-run-"
exists tl_out/index.html
kept=$(sed -n 's/^tlparse: the trace is kept in //p' err.txt)
exists "$kept/dedicated_log_torch_trace_9x.log"
# the command failed: its status, and the report of what it traced
run 3 -o failed --run ./writer.sh 3
has err.txt "tlparse: ./writer.sh exited with status 3; reporting on what it traced"
exists failed/index.html
# with --summary and --fail-on: the diagnosis of the command's trace
run 1 --summary --fail-on recompiles --run -- ./writer.sh
has out.txt "RECOMPILES x1 in forward"
# a command that writes nothing: said so, and its empty folder is removed
run 1 -o none --run -- true
has err.txt "tlparse: error: true wrote no trace (into $TMPDIR/tlparse-run-"
absent none
same <(find "$TMPDIR" -maxdepth 1 -name 'tlparse-run-*' -empty | wc -l | tr -d ' ') "0"
# a command that cannot be run
run 127 -o none --run -- ./no-such-command
has err.txt "tlparse: error: cannot run ./no-such-command"
# a Python script, the way people run it (python3 is there wherever the tests run)
cat >train.py <<EOF
import os, shutil
shutil.copy("$edge", os.path.join(os.environ["TORCH_TRACE"], "dedicated_log_torch_trace_rank_0_x.log"))
shutil.copy("$demo", os.path.join(os.environ["TORCH_TRACE"], "dedicated_log_torch_trace_rank_1_y.log"))
EOF
run 0 -o py --run -- python3 train.py
exists py/rank_0/index.html # two rank logs: the multi-rank report
exists py/rank_1/index.html
exists py/index.html
# tlparse's options after --run, up to "--" (or the command's first word), in any order;
# the command's own options are left to it
cat >args.sh <<EOF
#!/bin/sh
# writes its arguments and a trace
printf '%s\n' "\$@" >"$tmp/args"
cp "$demo" "\$TORCH_TRACE/dedicated_log_torch_trace_9x.log"
EOF
chmod +x args.sh
run 0 --run --no-browser -o opts1 -- ./args.sh -o x --no-browser
exists opts1/index.html
same <(tr "\\n" " " <"$tmp/args") "-o x --no-browser "
run 2 --run -o opts2 --summary ./args.sh --summary # -o does nothing with --summary
has err.txt "tlparse: error: cannot use -o with --summary or --json (they write no report)"
absent opts2
run 0 --run --summary ./args.sh --summary
has out.txt "tlparse diagnosis of"
same "$tmp/args" "--summary"
run 0 -o opts3 --run --no-browser -- ./args.sh
exists opts3/index.html
# usage
run 2 --run
has err.txt "tlparse: error: --run wants a command: tlparse --run [OPTIONS] -- CMD [ARGS...]"
run 2 --run -o x --
has err.txt "tlparse: error: --run wants a command: tlparse --run [OPTIONS] -- CMD [ARGS...]"
run 2 "$demo" --run ls
has err.txt "tlparse: error: --run takes no PATH (the trace is the command's): $demo"

# --- opening the report
cat >browser.sh <<EOF
#!/bin/sh
echo "\$@" >"$tmp/opened"
EOF
chmod +x browser.sh
# no display, no BROWSER: nothing is opened, nothing said
run 0 "$demo" -o b1
same err.txt "Stats { ok: 161 }
tlparse: b1/index.html: 5 compile ids, 1 graph break, 1 recompile, 1 failure"
absent opened
# BROWSER is used, with the page as its argument
BROWSER="$tmp/browser.sh" run 0 "$demo" -o b2
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s opened ] && break; sleep 0.2; done
same opened "b2/index.html"
rm -f opened
# "%s" stands for the page
BROWSER="$tmp/browser.sh --new-tab %s:other" run 0 "$demo" -o b3
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s opened ] && break; sleep 0.2; done
same opened "--new-tab b3/index.html"
rm -f opened
# --no-browser wins; --summary writes no report to open
BROWSER="$tmp/browser.sh" run 0 "$demo" -o b4 --no-browser
BROWSER="$tmp/browser.sh" run 0 --summary "$demo"
sleep 0.5
absent opened
# a display without xdg-open: a warning, and the run is fine
mkdir emptybin
DISPLAY=:99 PATH="$tmp/emptybin" run 0 "$demo" -o b5
has err.txt "tlparse: warning: could not open a browser; the report is b5/index.html"

# --- rough edges
# standard input
run 0 - -o stdin <"$demo"
same err.txt "Stats { ok: 161 }
tlparse: stdin/index.html: 5 compile ids, 1 graph break, 1 recompile, 1 failure"
exists stdin/index.html
has stdin/summary.json '"path": "/dev/stdin"'
# a folder with a trace and a newer note: the trace is taken
mkdir folder
cp "$demo" folder/dedicated_log_torch_trace_abc.log
touch -d '2024-01-01' folder/dedicated_log_torch_trace_abc.log
echo "my notes" >folder/notes.txt
run 0 folder -o fold
has err.txt "tlparse: parsing folder/dedicated_log_torch_trace_abc.log, the newest log in folder (1 other file skipped)"
has err.txt "Stats { ok: 161 }"
# a folder of other files only: the newest that is a log is taken (by what it holds)
mkdir other
echo a >other/a.txt
run 1 other -o oth
same err.txt "tlparse: error: No log found in directory other: a.txt is not a TORCH_TRACE log or TORCH_LOGS text: its one line has no glog prefix and is not a TORCH_LOGS message"
absent oth
cp "$demo" other/b.txt
touch -d '2024-01-01' other/b.txt
run 0 other -o oth
has err.txt "tlparse: parsing other/b.txt, the newest log in other (1 other file skipped)"
# an empty log: said so
: >empty.log
run 0 empty.log -o emp
has err.txt "tlparse: warning: empty.log is empty: the report has nothing in it"
# -o naming a file: not a folder; never replaced, even with --overwrite
echo "keep me" >afile
run 1 "$demo" -o afile
same err.txt "tlparse: error: afile exists and is not a folder; not replacing it (use -o OUTDIR to write the report elsewhere)"
run 1 "$demo" -o afile --overwrite
same afile "keep me"
# an existing folder still says so
run 1 "$demo" -o emp
has err.txt "tlparse: error: Directory emp already exists; pass --overwrite to replace it or use -o OUTDIR"

# --- what made the report: the command line in summary.json
run 0 "$demo" -o 'cmd line' --no-browser
has "cmd line/summary.json" "tlparse $demo -o 'cmd line' --no-browser"

summary_line workflow
