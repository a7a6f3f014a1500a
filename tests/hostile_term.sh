#!/usr/bin/env bash
# No byte of a log reaches a terminal as a control. A trace whose every string tlparse may print
# (frame and file names, guards, graph-break, recompile and failure reasons, specialization
# sources, compile-id fields: tests/e2e/make_hostile_log.py --term) is full of ESC, CSI, OSC,
# DCS, C1 (in UTF-8 and as raw bytes), CR, BEL, BS and NUL, and so are the names of the log, of
# TORCH_LOGS text, of rank logs and of a folder's newest log, the --run command and the
# --rank-failed reason. Every mode runs on them: the report, --summary (without and with
# colour, on a terminal), --json, TORCH_LOGS text, a folder of rank logs (--all-ranks-html,
# --summary, --json), diff (text, JSON, folder), --fail-on, --strict, --bundle, --redact,
# --export, --run, --rank-only --rank-failed and --from-summaries, tlparse-slurm, --watch (with
# and without a terminal), and errors that name a file. Each stdout and stderr must hold no byte
# a terminal acts on but our own colours (tests/term_check.py), must show the log's text made
# printable ('?') rather than drop it, and the run must end with its exit code.
# Usage: tests/hostile_term.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, need_python3, new_tmp, ok, bad, summary_line; has and same below
need_python3 hostile_term
bin=$(realpath "$1")
slurm=$(realpath "$here/../scripts/tlparse-slurm")
demo=$here/fixtures/demo.log
new_tmp
cd "$tmp" || exit 1
export TMPDIR=$tmp/tmpdir # --run's trace folders, kept by tlparse: removed with $tmp
mkdir "$TMPDIR"

# A file name's worth of escapes (no '/'): clear the screen, set the title, a hyperlink ended by
# ST, CR and an overwrite, C1 CSI as a raw byte, C1 OSC and ST in UTF-8. EU: the same in UTF-8
# only (rank logs must have UTF-8 names). Q: how tlparse shows either.
E=$'\e[2J\e]0;T\a\e]8;;x\e\\L\e]8;;\e\\\rOVER\x9b2J\xc2\x9d0;t\xc2\x9c'
EU=$'\e[2J\e]0;T\a\e]8;;x\e\\L\e]8;;\e\\\rOVER\xc2\x9b2J\xc2\x9d0;t\xc2\x9c'
Q='?[2J?]0;T??]8;;x?\L?]8;;?\?OVER?2J?0;t?'
log="ZQfnm$E.log" # shown as ZQfnm$Q.log
text="ZQtxt$E.txt"
python3 "$here/e2e/make_hostile_log.py" --term "$log" "$text" || {
    echo "hostile_term: make_hostile_log.py --term failed"
    exit 1
}
# what the log's strings look like once printable: variant a (clear the screen, cursor home) of
# the recompile's function name, and of a graph break's reason
fn_a='ZQh01a?[2J?[H ZQh01b?]0;ZZtitle? ZQh01c?]8;;http://x?\ZZlink?]8;;?\ ZQh01d?ZZover?[K'
reason_a='ZQh04a?[2J?[H ZQh04b?]0;ZZtitle?'

# Said on failure with `cat -v`: this suite's output goes to a terminal too. (lib.sh's has and
# same, but for that.)
shown() { printf '%s' "$1" | cat -v; }
has() { # has FILE TEXT
    if grep -qaF -- "$2" "$1"; then ok; else bad "$1 lacks '$(shown "$2")': $(head -c 400 "$1" | cat -v)"; fi
}
same() { # same FILE TEXT
    if [ "$(cat "$1")" = "$2" ]; then ok; else bad "$1 is '$(cat -v "$1")', want '$(shown "$2")'"; fi
}
# clean FILE [--color] [--screen]: FILE holds no byte a terminal acts on (but our colours)
clean() {
    local why
    if why=$(python3 "$here/term_check.py" clean "$@"); then ok; else bad "$why"; fi
}
# exits WANT GOT WHAT
exits() { if [ "$2" = "$1" ]; then ok; else bad "$(shown "$3"): exit $2, want $1; stderr: $(head -c 300 err.txt 2>/dev/null | cat -v)"; fi; }
# t WANT ARGS...: tlparse ARGS, stdout in out.txt and stderr in err.txt, both clean
t() {
    local want=$1
    shift
    "$bin" "$@" >out.txt 2>err.txt
    exits "$want" $? "tlparse $*"
    clean out.txt
    clean err.txt
}
# json_has FILE TEXT: FILE is JSON, one of whose strings holds TEXT (a bash $'...' string)
json_has() {
    if python3 - "$1" "$2" <<'PY'; then ok; else bad "$1: no JSON string holds $(printf '%q' "$2")"; fi
import json, sys
want = sys.argv[2].encode("utf-8", "surrogateescape").decode("utf-8")
def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
doc = json.load(open(sys.argv[1], encoding="utf-8"))  # valid UTF-8 JSON, or this fails
sys.exit(0 if any(want in s for s in strings(doc)) else 1)
PY
}

# ---- one log: the report's messages, --summary, --json ---------------------------------------
t 0 "$log" -o rep --no-browser
has err.txt "tlparse: warning: ZQfnm$Q.log:14: Failed to parse metadata JSON"
has err.txt 'Stats { ok: 115, '
has err.txt '"ZQx01a?[2J?[H", "ZQx01b?]0;ZZtitle?", "ZQx01c?]8;;http://x?\ZZlink?]8;;?\", "ZQx01d?ZZover?[K"'
has err.txt "tlparse: rep/index.html: 7 compile ids, 13 graph breaks, 2 recompiles, 3 failures"
t 0 "$log" --summary
has out.txt "tlparse diagnosis of ZQfnm$Q.log (torch_trace): 7 compile ids, 3.00 s compiling"
has out.txt "RECOMPILES x2 in $fn_a"
has out.txt "RECOMPILE LIMIT recompile_limit (2) hit in $fn_a"
has out.txt "GRAPH BREAK x1: $reason_a"
# advice quotes the log: "What: ... whether EXPR holds"
has out.txt '     What: Export evaluated a guard on a dynamic size. The code needed to know whether ZQv01a?[2J?[H ZQv01b?]0;ZZtitle?'
has out.txt '     - ZQh03a?[2J?[H ZQh03b?]0;ZZtitle?'
# raw bytes of a payload (the graph break's reason, variant g: 0x9b 0x9d) are '?' each
has out.txt 'ZQh04g?2J?0;t?'
# colour, on a terminal: our SGR codes, nothing else
python3 "$here/term_check.py" pty color.txt "$bin" "$log" --summary --no-progress
exits 0 $? "--summary on a terminal"
clean color.txt --color
has color.txt $'\e[1mtlparse diagnosis\e[0m of ZQfnm'"$Q.log"
has color.txt $'\e[1;33mRECOMPILES\e[0m x2 in '"$fn_a"
t 0 "$log" --json
json_has out.txt $'ZQh01a\e[2J\e[H ZQh01b\e]0;ZZtitle\a'
json_has out.txt $'ZQh03f\xc2\x9b31m\xc2\x9d0;t\xc2\x9c' # C1 kept, as \u009b ...
has out.txt 'ZQh03f\u009b31m\u009d0;t\u009c'
json_has out.txt $'ZQh04g\xef\xbf\xbd2J' # a raw byte: U+FFFD
json_has out.txt $'ZQfnm\e[2J\e]0;T\a\e]8;;x\e\\L\e]8;;\e\\\rOVER\xef\xbf\xbd2J\xc2\x9d0;t\xc2\x9c.log'
has out.txt '"path": "ZQfnm\u001b[2J\u001b]0;T\u0007\u001b]8;;x\u001b\\L'

# ---- TORCH_LOGS text -------------------------------------------------------------------------
t 0 "$text" --summary
has out.txt "tlparse diagnosis of ZQtxt$Q.txt (torch_logs)"
has out.txt 'RECOMPILES x1 in ZQtxta?[2J?[H ZQtxtb?]0;ZZtitle?'
t 0 "$text" --json
json_has out.txt $'ZQtxta\e[2J\e[H'
t 0 "$text" -o txtrep --no-browser
has err.txt "tlparse: txtrep/index.html: "

# ---- errors and messages that name a file -----------------------------------------------------
t 1 "missing$E.log" --summary
has err.txt "missing$Q.log"
t 2 "$log" "extra$E"
has err.txt "tlparse: error: unexpected argument extra$Q"
mkdir folder
cp "$log" "folder/$log"
t 0 folder --summary
has err.txt "tlparse: parsing folder/ZQfnm$Q.log, the only file in folder"
has out.txt "tlparse diagnosis of folder/ZQfnm$Q.log (torch_trace)"

# ---- --fail-on, --strict, --bundle, --redact, --export ----------------------------------------
t 1 "$log" --summary --fail-on any
has err.txt "tlparse: --fail-on: the trace has 1 frame run in eager mode, 3 failed compilations, 13 graph breaks, 2 recompiles"
t 1 "$log" -o strict --no-browser --strict
has err.txt "tlparse: error: Something went wrong (--strict: the log has problems; see the Stats line)"
t 0 "$log" -o bz --no-browser --bundle "b$E.zip"
has err.txt "tlparse: bz/index.html and b$Q.zip: 7 compile ids"
t 0 "$log" --no-browser --bundle "b$E.html"
has err.txt "tlparse: b$Q.html: 7 compile ids"
t 0 "$log" -o red --no-browser --redact
has err.txt "tlparse: red/index.html: 7 compile ids"
t 0 "$log" -o exp --no-browser --export
has err.txt "tlparse: exp/index.html: "
t 0 "$log" --export --summary
has out.txt 'EXPORT BLOCKED: Guard evaluated: ZQv01a?[2J?[H'

# ---- a folder of rank logs (names in UTF-8: tlparse takes no other), one that cannot be read --
mkdir ranks
cp "$log" "ranks/dedicated_log_torch_trace_rank_0_ZQrnk$EU.log"
cp "$demo" "ranks/dedicated_log_torch_trace_rank_1_ZQrnk$EU.log"
printf '\x28\xb5\x2f\xfd not zstd' >"ranks/dedicated_log_torch_trace_rank_2_ZQrnk$EU.log"
rank_log() { echo "dedicated_log_torch_trace_rank_$1_ZQrnk$Q.log"; }
t 0 ranks --all-ranks-html -o mr --no-browser
has err.txt "tlparse: warning: ranks/$(rank_log 0):14: Failed to parse metadata JSON"
has err.txt "tlparse: warning: rank 2: ranks/$(rank_log 2): zstd: Data corruption detected; it has no report"
has err.txt "tlparse: mr/index.html: 2 ranks (and 1 not read), "
t 1 ranks --summary
has out.txt "  Rank 2 was not read: ranks/$(rank_log 2): zstd: Data corruption detected"
has out.txt "=== rank 0 ($(rank_log 0)) ==="
has out.txt "RECOMPILES x2 in $fn_a"
t 1 ranks --json
json_has out.txt "dedicated_log_torch_trace_rank_0_ZQrnk$EU.log"
json_has out.txt $'ZQh01a\e[2J\e[H'
t 1 ranks --all-ranks-html -o mr2 --no-browser --fail-on any
has err.txt "tlparse: --fail-on: 1 rank could not be read"

# ---- --rank-only --rank-failed (tlparse-slurm's), --from-summaries, tlparse-slurm -------------
t 0 --rank-only "ranks/dedicated_log_torch_trace_rank_0_ZQrnk$EU.log" -o fs/rank_0 --no-browser
t 0 --rank-only --rank 3 --rank-failed "task died: $E" -o fs/rank_3
same err.txt "Rank 3 has no report (task died: $Q): said in fs/rank_3/summary.json"
t 0 --all-ranks-html --from-summaries fs --no-browser
has err.txt "tlparse: fs/index.html: 1 rank (and 1 not read)"
# tlparse-slurm leaves a rank log with a control character in its name alone (its state files
# are line by line), saying so with the name made printable (\xHH)
"$slurm" node ranks -o sl --tlparse "$bin" >out.txt 2>err.txt
exits 0 $? "tlparse-slurm node"
clean out.txt
clean err.txt
has err.txt "/ranks/dedicated_log_torch_trace_rank_0_ZQrnk\x1b[2J\x1b]0;T\x07"
has err.txt "has a control character in its name: not parsed"
"$slurm" finish -o sl --tlparse "$bin" >out.txt 2>err.txt
exits 1 $? "tlparse-slurm finish"
clean out.txt
clean err.txt
has err.txt "tlparse-slurm: error: no rank log was found, and no --world-size was given"

# ---- diff: text, JSON, folder ------------------------------------------------------------------
t 0 diff "$demo" "$log" --summary
has out.txt "tlparse diff: $demo (torch_trace) -> ZQfnm$Q.log (torch_trace)"
has out.txt "$fn_a"
t 0 diff "$text" "$log" --json
json_has out.txt $'ZQh01a\e[2J\e[H'
t 0 diff "$demo" "$log" -o dd --no-browser
has err.txt "after: tlparse: warning: ZQfnm$Q.log:14: Failed to parse metadata JSON"
has err.txt "tlparse: the diff is dd/index.html"
t 1 diff "$demo" "missing$E.log" --summary
has err.txt "missing$Q.log"

# ---- --run: a command (itself named with escapes) that writes such a trace ------------------
# (named as PyTorch names its logs, in UTF-8: what --watch follows in a TORCH_TRACE folder; after
# ZQ_DELAY seconds: the logs that come after the watch started)
cat >"run$E.sh" <<EOF
#!/bin/sh
sleep \${ZQ_DELAY:-0}
python3 '$here/e2e/make_hostile_log.py' --term "\$TORCH_TRACE/dedicated_log_torch_trace_ZQfnm$EU.log"
EOF
chmod +x "run$E.sh"
t 0 --run --no-browser -o runrep -- "./run$E.sh"
has err.txt "tlparse: running ./run$Q.sh with TORCH_TRACE="
has err.txt "tlparse: runrep/index.html: 7 compile ids"
t 0 --run --summary -- "./run$E.sh"
has out.txt "/dedicated_log_torch_trace_ZQfnm$Q.log (torch_trace): 7 compile ids"

# ---- --watch ------------------------------------------------------------------------------------
# Without a terminal: one line per finding, the report at the end
export ZQ_DELAY=1
t 0 --watch --no-browser -o w1 --run -- "./run$E.sh"
has out.txt "tlparse: following /"
has out.txt "/dedicated_log_torch_trace_ZQfnm$Q.log"
has out.txt "recompile: ZQh01a?[2J?[H ZQh01b?]0;ZZtitle?"
has out.txt "compiled 3 times"
has err.txt "tlparse: w1/index.html: 7 compile ids"
"$bin" --watch --no-browser -o w2 "$log" >out.txt 2>err.txt &
watch_pid=$!
for _ in $(seq 300); do # Ctrl-C once it said the recompile (30 s at most)
    grep -aq "recompile: compiled 3 times" out.txt && break
    sleep 0.1
done
kill -INT "$watch_pid"
wait "$watch_pid"
exits 0 $? "--watch LOG, Ctrl-C"
clean out.txt
clean err.txt
has out.txt "recompile: $fn_a"
# On a terminal: the screen, redrawn in place with our own sequences (and colours)
python3 "$here/term_check.py" pty screen.txt --int-on "compiled 3 times" "$bin" --watch --no-browser -o w3 "$log"
exits 0 $? "--watch LOG on a terminal, Ctrl-C"
has screen.txt $'\e[1;33mrecompile\e[0m: ZQh01a?[2J?[H ZQh01b?]0;ZZtitle?'
# the screen: only our own sequences (colours, and the panel's redraw in place)
if why=$(python3 "$here/term_check.py" clean screen.txt --color --screen); then ok; else bad "$why"; fi
has screen.txt "tlparse --watch ZQfnm$Q.log"
# a live view that cannot be written is an error, as any other output
"$bin" --watch --no-browser -o w4 --run -- "./run$E.sh" >/dev/full 2>err.txt
exits 1 $? "--watch >/dev/full"
has err.txt "tlparse: error: cannot write to stdout: No space left on device"
clean err.txt

summary_line hostile_term
