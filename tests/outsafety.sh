#!/usr/bin/env bash
# Output safety: an existing report is never touched without --overwrite, is replaced
# only by a complete new one, and every failure (a libc call failing at any point,
# a read-only folder, Ctrl-C) leaves the output folder as it was, with no temporary
# folder behind, exit 1 (130 for a signal) and a message naming the path and the OS
# error. Failures are injected with an LD_PRELOAD shim, tests/inject/failcall.c,
# built here with cc.
# Usage: tests/outsafety.sh path/to/tlparse     (needs cc, python3)
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here; counts cases (begin, mark_failed, tally); P, CID, entry
bin=$(realpath "$1")
root=$(cd "$here/.." && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    chmod -R u+w "$tmp" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
export TLPARSE_YEAR=2024

bad() {
    mark_failed
    echo "    $*" | head -c 1200
    echo
}

# ---- the shim; with ASan the runtime must come first in LD_PRELOAD
if ! cc -shared -fPIC -O1 -o failcall.so "$here/inject/failcall.c" -ldl 2>cc.txt; then
    echo "outsafety: cannot build tests/inject/failcall.c: $(head -3 cc.txt)"
    exit 1
fi
asan=$(ldd "$bin" 2>/dev/null | awk '/libasan/ {print $3; exit}')
preload="${asan:+$asan }$tmp/failcall.so"
asan_opts="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# ---- a small log touching every kind of output: per-compile files, a dump_file, a
# payload fallback file, chromium events, metrics and the failures page
{
    entry '{"str": ["/src/model.py", 0]}' ''
    entry '{"dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": 0}]}, '"$CID"'}' ''
    entry '{"chromium_event": {}, '"$CID"', "has_payload": "@MD5@"}' '{"name": "dynamo", "ph": "B", "ts": 1, "pid": 0, "tid": 0}'
    entry '{"dynamo_output_graph": {}, '"$CID"', "has_payload": "@MD5@"}' 'graph():'
    entry '{"dynamo_guards": {}, '"$CID"', "has_payload": "@MD5@"}' '[{"code": "x", "guard_types": ["TYPE_MATCH"]}]'
    entry '{"artifact": {"name": "cfg", "encoding": "json"}, '"$CID"', "has_payload": "@MD5@"}' '{"b": 1, "a": [1, 2]}'
    entry '{"inductor_output_code": {"filename": "/tmp/k/kernel.py"}, '"$CID"', "has_payload": "@MD5@"}' 'def call(): pass'
    entry '{"dump_file": {"name": "<eval_with_key>.3"}, '"$CID"', "has_payload": "@MD5@"}' 'def forward(self): pass'
    entry '{"describe_storage": {"id": 0, "describer_id": 0, "size": 4}, '"$CID"', "has_payload": "@MD5@"}' 'unclaimed payload'
    entry '{"compilation_metrics": {"co_name": "f", "graph_op_count": 1, "restart_reasons": ["because"]}, '"$CID"'}' ''
    entry '{"compilation_metrics": {"co_name": "g", "fail_type": "E", "fail_reason": "r"}, "frame_id": 1, "frame_compile_id": 0, "attempt": 0}' ''
} >input-trace.log
# a second, different log for the old reports
entry '{"dynamo_output_graph": {}, "frame_id": 9, "frame_compile_id": 9, "attempt": 0, "has_payload": "@MD5@"}' 'old graph' >old-input-trace.log

"$bin" input-trace.log -o want --no-browser >/dev/null 2>want.err || echo "outsafety: the reference run failed: $(cat want.err)"
"$bin" old-input-trace.log -o old --no-browser >/dev/null 2>&1 || echo "outsafety: the old-report run failed"
echo "an old note" >old/marker.txt
# the run's last line names its report folder: compared as OUT/index.html
norm() { sed -E 's#^tlparse: [^ ]*/index\.html: #tlparse: OUT/index.html: #' "$1"; }
stderr_ok=$(norm want.err)

# listing DIR: every entry below DIR with type, size, mode and mtime (what "intact" means)
listing() { (cd "$1" 2>/dev/null && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort); }
same_report() { # same_report DIR: DIR holds exactly the reference report, but for how each
    # was run (the command line in the index's footer and summary.json's generated_by)
    rm -rf want.s got.s && cp -r want want.s && cp -r "$1" got.s &&
        python3 "$here/strip_runinfo.py" want.s got.s
    diff -r want.s got.s >diff.txt 2>&1 || bad "$1 differs from the reference report: $(head -5 diff.txt)"
}
no_temp() { # no_temp DIR: no .NAME.tlparse-* left in DIR
    local left
    left=$(find "$1" -maxdepth 1 -name '.*.tlparse-*' 2>/dev/null | head -3)
    [ -z "$left" ] || bad "temporary folder left: $left"
}
# one_error SERR: stderr is the normal output plus exactly one error line that names the
# output path (or one of its parent folders) and ends with the OS error text SERR
one_error() {
    local serr=$1 errs others
    errs=$(grep -c '^tlparse: error: ' err.txt)
    others=$(grep -v -e '^tlparse: error: ' -e '^Stats {' -e '^Unknown fields: ' err.txt)
    [ "$errs" = 1 ] || bad "want one error line, got $errs: $(head -c 600 err.txt)"
    [ -z "$others" ] || bad "unexpected stderr lines: $(echo "$others" | head -5)"
    grep -qE "^tlparse: error: [^:]* p(/q(/out(/[^:]*)?)?)?: $serr\$" err.txt ||
        bad "the error does not name the output path and '$serr': $(grep '^tlparse: error' err.txt)"
}
# shim RC SPEC ARGS...: run tlparse with failures injected (TL_FAIL=SPEC) on input-trace.log;
# sets $injected when a failure was actually injected.
shim() {
    local want=$1 spec=$2
    shift 2
    rm -f fl.txt
    LD_PRELOAD="$preload" ASAN_OPTIONS="$asan_opts" TL_FAIL="$spec" TL_FAIL_LOG="$tmp/fl.txt" \
        TL_FAIL_SKIP=input-trace "$bin" input-trace.log --no-browser "$@" >out.txt 2>err.txt
    rc=$?
    injected=$([ -e fl.txt ] && echo 1)
    [ -z "$want" ] || [ "$rc" = "$want" ] || bad "TL_FAIL=$spec tlparse $*: exit $rc, want $want; stderr: $(head -c 600 err.txt)"
}
fresh_state() { rm -rf p && mkdir p; }               # p/q/out absent (p/q too)
old_state() { rm -rf p && mkdir -p p/q && cp -a old p/q/out; } # an old report in p/q/out

# ============================================================================ (a)
begin existing_folder_untouched_without_overwrite
old_state
touch -d 2020-01-01 p/q/out/marker.txt p/q/out p/q
before=$(listing p)
"$bin" input-trace.log -o p/q/out --no-browser >out.txt 2>err.txt
rc=$?
[ "$rc" = 1 ] || bad "exit $rc, want 1"
[ "$(cat err.txt)" = "tlparse: error: Directory p/q/out already exists; pass --overwrite to replace it or use -o OUTDIR" ] ||
    bad "stderr: $(cat err.txt)"
[ "$before" = "$(listing p)" ] || bad "p changed: $(diff <(echo "$before") <(listing p) | head -5)"
[ "$(cat p/q/out/marker.txt)" = "an old note" ] || bad "marker changed"
no_temp p/q

begin existing_file_untouched
fresh_state
mkdir p/q && echo "not a report" >p/q/out && touch -d 2020-01-01 p/q/out p/q
before=$(listing p)
"$bin" input-trace.log -o p/q/out --no-browser >out.txt 2>err.txt
[ "$?" = 1 ] || bad "exit without --overwrite is not 1"
[ "$(cat err.txt)" = "tlparse: error: p/q/out exists and is not a folder; not replacing it (use -o OUTDIR to write the report elsewhere)" ] ||
    bad "stderr: $(cat err.txt)"
"$bin" input-trace.log -o p/q/out --no-browser --overwrite >out.txt 2>err.txt
[ "$?" = 1 ] || bad "exit with --overwrite is not 1"
[ "$(cat err.txt)" = "tlparse: error: p/q/out exists and is not a folder; not replacing it (use -o OUTDIR to write the report elsewhere)" ] ||
    bad "stderr: $(cat err.txt)"
[ "$before" = "$(listing p)" ] || bad "p changed: $(diff <(echo "$before") <(listing p) | head -5)"

# ---- a long run: a 40 MB payload read slowly by the shim (30 ms per 1 MiB read)
python3 - <<'EOF'
import hashlib
line, n = "x" * 99, 400000
body = "\n".join([line] * n)
with open("slow-trace.log", "w") as f:
    f.write("V1121 10:00:00.000000 1 torch/x.py:1] {\"dynamo_output_graph\": {}, \"frame_id\": 0, "
            "\"has_payload\": \"%s\"}\n" % hashlib.md5(body.encode()).hexdigest())
    f.write("\t" + "\n\t".join([line] * n) + "\n")
EOF
slow() { # slow ARGS...: start tlparse on slow-trace.log in the background; sets $pid
    LD_PRELOAD="$preload" ASAN_OPTIONS="$asan_opts" TL_SLOW_READ=30000 \
        "$bin" slow-trace.log --no-browser "$@" >out.txt 2>err.txt &
    pid=$!
    pids+=("$pid")
}

begin folder_appearing_while_running
fresh_state
mkdir p/q
slow -o p/q/out
sleep 0.3
mkdir p/q/out && echo mine >p/q/out/marker.txt
wait "$pid"
rc=$?
[ "$rc" = 1 ] || bad "exit $rc, want 1"
[ "$(cat err.txt)" = "Stats { ok: 1 }
tlparse: error: Directory p/q/out appeared while tlparse ran; not replacing it" ] || bad "stderr: $(cat err.txt)"
[ "$(ls -A p/q/out)" = marker.txt ] && [ "$(cat p/q/out/marker.txt)" = mine ] || bad "the folder that appeared was changed"
no_temp p/q

# ============================================================================ (b)
begin overwrite_replaces_old_report
old_state
"$bin" input-trace.log -o p/q/out --no-browser --overwrite >out.txt 2>err.txt
[ "$?" = 0 ] || bad "exit not 0: $(cat err.txt)"
[ "$(norm err.txt)" = "$stderr_ok" ] || bad "stderr: $(cat err.txt)"
same_report p/q/out
no_temp p/q
[ -z "$(find p/q -mindepth 1 -maxdepth 1 ! -name out)" ] || bad "left beside the report: $(ls -A p/q)"

begin overwrite_write_fails_midway
old_state
before=$(listing p/q/out)
shim 1 write:5:ENOSPC -o p/q/out --overwrite
[ -n "$injected" ] || bad "no write failed"
one_error "No space left on device"
[ "$before" = "$(listing p/q/out)" ] || bad "the old report changed"
diff -r old p/q/out >/dev/null || bad "the old report's content changed"
no_temp p/q

begin long_output_path_keeps_the_os_error
# The message names the whole path and still ends with the OS error.
fresh_state
longdir=p/$(printf 'L%.0s' $(seq 200))/$(printf 'M%.0s' $(seq 200))/$(printf 'N%.0s' $(seq 200))
mkdir -p "$longdir"
shim 1 write:3:ENOSPC -o "$longdir/out"
grep -q "^tlparse: error: cannot write $longdir/out/[^ ]*: No space left on device\$" err.txt ||
    bad "stderr: $(cat err.txt)"
[ ! -e "$longdir/out" ] || bad "$longdir/out exists"
no_temp "$longdir"

# ============================================================================ (c)
# fail_every CALL ERRNO STATE: fail the Nth counted CALL for N = 0, 1, 2 ... until a run
# gets through without reaching it; every failing run must exit 1 with one error that
# names the path and the OS error, and leave the output folder as it was.
fail_every() {
    local call=$1 err=$2 state=$3 serr n before runs=0
    serr=$(python3 -c 'import errno, os, sys; print(os.strerror(getattr(errno, sys.argv[1])))' "$err")
    local args=(-o p/q/out)
    [ "$state" = old ] && args+=(--overwrite)
    "${state}_state"
    for n in $(seq 0 200); do
        before=$(listing p/q/out)
        shim "" "$call:$n:$err" "${args[@]}"
        if [ -z "$injected" ]; then
            [ "$rc" = 0 ] || bad "$call:$n with nothing injected: exit $rc; $(head -c 300 err.txt)"
            [ "$(norm err.txt)" = "$stderr_ok" ] || bad "$call:$n with nothing injected: stderr $(head -c 300 err.txt)"
            same_report p/q/out
            no_temp p/q
            break
        fi
        runs=$((runs + 1))
        local bad_before=${failed[$cur]:-}
        [ "$rc" = 1 ] || bad "$call:$n ($(cat fl.txt)): exit $rc, want 1; stderr: $(head -c 300 err.txt)"
        one_error "$serr"
        [ "$before" = "$(listing p/q/out)" ] || bad "$call:$n ($(cat fl.txt)): the output folder changed"
        no_temp p/q
        if [ -n "${failed[$cur]:-}" ] && [ -z "$bad_before" ]; then
            echo "    (at $call:$n: $(cat fl.txt))"
            "${state}_state" # start the next run from a clean state
        fi
        [ "$n" -lt 200 ] || bad "still injecting after 200 calls"
    done
    [ "$runs" -gt 0 ] || bad "$call was never called"
}
# (renameat2 and, with an old report, rename: see the exchange cases below)
for state in fresh old; do
    for call in write openat open mkdir mkdirat mkdtemp rename copy_file_range close; do
        [ "$state$call" = oldrename ] && continue
        begin "fail_every_${call}_${state}"
        fail_every "$call" ENOSPC "$state"
    done
done

# renameat2(RENAME_EXCHANGE) unsupported (EINVAL): the fallback moves the old report aside
begin exchange_unsupported_fallback
old_state
shim 0 renameat2:0:EINVAL:sticky -o p/q/out --overwrite
[ -n "$injected" ] || bad "renameat2 was not called"
[ "$(norm err.txt)" = "$stderr_ok" ] || bad "stderr: $(cat err.txt)"
same_report p/q/out
no_temp p/q
[ -z "$(find p/q -mindepth 1 -maxdepth 1 ! -name out)" ] || bad "left beside the report: $(ls -A p/q)"

begin exchange_unsupported_then_each_rename_fails
for n in 0 1; do
    old_state
    before=$(listing p/q/out)
    shim 1 "renameat2:0:EINVAL:sticky,rename:$n:EIO" -o p/q/out --overwrite
    one_error "Input/output error"
    [ "$before" = "$(listing p/q/out)" ] || bad "rename $n failed: the old report changed or is gone"
    no_temp p/q
done

begin exchange_unsupported_and_renames_keep_failing
# The new report cannot be moved in and the old one cannot be moved back: the old report
# must stay where it was, or the message must say where it is now.
old_state
before=$(listing p/q/out)
shim 1 "renameat2:0:EINVAL:sticky,rename:1:EIO:sticky" -o p/q/out --overwrite
if [ "$before" != "$(listing p/q/out)" ]; then
    kept=$(find p/q -maxdepth 1 -name '.out.tlparse-*' | head -1)
    want="tlparse: error: cannot replace p/q/out: Input/output error; the previous report is kept at $kept"
    if [ -z "$kept" ] || [ "$(grep "^tlparse: error" err.txt)" != "$want" ]; then
        bad "the old report is no longer at p/q/out (now: ${kept:-gone}) and the message does not say so: $(cat err.txt)"
    fi
else
    one_error "Input/output error"
fi

begin copy_file_range_unsupported
for err in EXDEV ENOSYS EOPNOTSUPP; do
    fresh_state
    shim 0 "copy_file_range:0:$err:sticky" -o p/q/out
    [ -n "$injected" ] || bad "copy_file_range was not called"
    [ "$(norm err.txt)" = "$stderr_ok" ] || bad "stderr with $err: $(cat err.txt)"
    same_report p/q/out
done

begin short_writes
fresh_state
shim 0 write:0:SHORT:sticky -o p/q/out
[ -n "$injected" ] || bad "write was not called"
[ "$(norm err.txt)" = "$stderr_ok" ] || bad "stderr: $(cat err.txt)"
same_report p/q/out

# ============================================================================ (d)
begin read_only_parent
if [ "$(id -u)" = 0 ]; then
    echo "    (running as root, which ignores folder permissions: read-only folder simulated with EACCES)"
    fresh_state
    mkdir p/q
    shim 1 mkdtemp:0:EACCES -o p/q/out
    [ "$(cat err.txt)" = "tlparse: error: cannot create a folder beside p/q/out: Permission denied" ] ||
        bad "stderr: $(cat err.txt)"
    [ -z "$(ls -A p/q)" ] || bad "p/q is not empty: $(ls -A p/q)"
    fresh_state
    shim 1 mkdir:0:EACCES -o p/q/out
    [ "$(cat err.txt)" = "tlparse: error: cannot create folder p: Permission denied" ] ||
        [ "$(cat err.txt)" = "tlparse: error: cannot create folder p/q: Permission denied" ] ||
        bad "stderr: $(cat err.txt)"
    [ ! -e p/q ] || bad "p/q was created"
    old_state
    before=$(listing p/q)
    shim 1 mkdtemp:0:EACCES -o p/q/out --overwrite
    [ "$(cat err.txt)" = "tlparse: error: cannot create a folder beside p/q/out: Permission denied" ] ||
        bad "stderr: $(cat err.txt)"
    [ "$before" = "$(listing p/q)" ] || bad "p/q changed"
else
    fresh_state
    mkdir p/q && chmod 555 p/q
    "$bin" input-trace.log -o p/q/out --no-browser >out.txt 2>err.txt
    [ "$?" = 1 ] || bad "exit not 1"
    [ "$(cat err.txt)" = "tlparse: error: cannot create a folder beside p/q/out: Permission denied" ] ||
        bad "stderr: $(cat err.txt)"
    [ -z "$(ls -A p/q)" ] || bad "p/q is not empty"
    chmod 555 p
    "$bin" input-trace.log -o p/new/out --no-browser >out.txt 2>err.txt
    [ "$?" = 1 ] || bad "exit not 1"
    [ "$(cat err.txt)" = "tlparse: error: cannot create folder p/new: Permission denied" ] ||
        bad "stderr: $(cat err.txt)"
    chmod 755 p p/q
    old_state
    chmod 555 p/q
    before=$(listing p/q)
    "$bin" input-trace.log -o p/q/out --no-browser --overwrite >out.txt 2>err.txt
    [ "$?" = 1 ] || bad "exit not 1 with --overwrite"
    [ "$(cat err.txt)" = "tlparse: error: cannot create a folder beside p/q/out: Permission denied" ] ||
        bad "stderr: $(cat err.txt)"
    [ "$before" = "$(listing p/q)" ] || bad "p/q changed"
    chmod 755 p/q
fi

# ============================================================================ (e)
big="$root/bench/out/big200.log"
if [ ! -f "$big" ]; then
    big="$tmp/big200.log"
    python3 "$root/scripts/grow_trace.py" --size-mb 200 -o "$big" "$root/tests/fixtures/demo.log" >/dev/null ||
        echo "outsafety: cannot grow a big log"
fi
# interrupt SIG STATE: SIG 0.3 s into a run on the big log
interrupt() {
    local sig=$1 state=$2 before
    "${state}_state"
    before=$(listing p/q/out)
    local args=(-o p/q/out)
    [ "$state" = old ] && args+=(--overwrite)
    "$bin" "$big" --no-browser "${args[@]}" >out.txt 2>err.txt &
    pid=$!
    pids+=("$pid")
    sleep 0.3
    kill "-$sig" "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" = 130 ] || bad "SIG$sig: exit $rc, want 130; stderr: $(head -c 300 err.txt)"
    [ "$(tail -1 err.txt)" = "tlparse: interrupted; no report written" ] || bad "SIG$sig: stderr: $(head -c 300 err.txt)"
    ! grep -q -e 'error' -e 'Sanitizer' err.txt || bad "SIG$sig: stderr: $(head -c 300 err.txt)"
    [ "$before" = "$(listing p/q/out)" ] || bad "SIG$sig: the output folder changed"
    no_temp p/q
}
begin sigint
interrupt INT fresh
interrupt INT old
begin sigterm
interrupt TERM fresh
interrupt TERM old
begin sighup
interrupt HUP fresh

begin interrupt_inside_a_payload
# The signal arrives while a payload is being read: the run stops with the one message,
# no warning about the half-read payload's md5.
fresh_state
slow -o p/q/out
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] || bad "exit $rc, want 130"
[ "$(cat err.txt)" = "tlparse: interrupted; no report written" ] || bad "stderr: $(cat err.txt)"
[ ! -e p/q/out ] || bad "p/q/out exists"
no_temp p/q

# ============================================================================ (f)
# kill -9 leaves the hidden folder (nothing can run then); it records its owner, and the
# next run into the same place removes it and says so, while folders of live runs, of
# other hosts and recent ones without an owner stay.
begin kill9_leftover_removed_by_next_run
fresh_state
mkdir -p p/q
"$bin" "$big" --no-browser -o p/q/out >out.txt 2>err.txt &
pid=$!
pids+=("$pid")
sleep 0.4
kill -KILL "$pid"
wait "$pid" 2>/dev/null
left=$(cd p/q && ls -A | grep '^\.out\.tlparse-' || true)
[ "$(echo "$left" | grep -c .)" = 1 ] || bad "want one hidden folder after kill -9, got: $(ls -A p/q)"
owner=$(cat "p/q/$left/.tlparse-owner" 2>/dev/null)
[ "$(echo "$owner" | awk '{print $2}')" = "$pid" ] || bad "owner file: '$owner', want pid $pid"
# planted: a live run (this shell), another host's run, a recent one without owner, an old one
# without owner, a dead run's, and a name that is not ours
host=$(hostname)
mkdir p/q/.out.tlparse-live01 p/q/.out.tlparse-other1 p/q/.out.tlparse-young1 \
    p/q/.out.tlparse-old001 p/q/.out.tlparse-dead01 p/q/.other.tlparse-dead02
echo "$host $$ 0" >p/q/.out.tlparse-live01/.tlparse-owner
echo "elsewhere.example 1 0" >p/q/.out.tlparse-other1/.tlparse-owner
touch -d '-20 minutes' p/q/.out.tlparse-old001
echo "$host $pid 0" >p/q/.out.tlparse-dead01/.tlparse-owner
echo "$host $pid 0" >p/q/.other.tlparse-dead02/.tlparse-owner
"$bin" input-trace.log -o p/q/out --no-browser >out.txt 2>err.txt
[ "$?" = 0 ] || bad "the next run failed: $(cat err.txt)"
msg=$(grep 'unfinished report folder' err.txt)
for gone in "$left" .out.tlparse-old001 .out.tlparse-dead01; do
    [ ! -e "p/q/$gone" ] || bad "$gone was not removed"
    grep -qF "$gone" <<<"$msg" || bad "the message does not name $gone: $msg"
done
grep -q '^tlparse: warning: removed 3 unfinished report folders of killed runs into p/q/out: ' <<<"$msg" ||
    bad "message: $msg"
for kept in .out.tlparse-live01 .out.tlparse-other1 .out.tlparse-young1 .other.tlparse-dead02; do
    [ -d "p/q/$kept" ] || bad "$kept was removed"
done
[ ! -e p/q/out/.tlparse-owner ] || bad "the owner file is in the report"
same_report p/q/out
rm -rf p/q/.out.tlparse-* p/q/.other.tlparse-*

# ============================================================================ (g)
# --all-ranks-html onto a full disk. Writing a rank's report failing (ENOSPC, EIO, EDQUOT) is
# no fault of the rank's log: the run fails (exit 1, one error naming the file and the OS
# error, no "Multi-rank report generated", no per-rank warning) and leaves the output folder
# as it was: absent, or the old report with --overwrite; no temporary folder. With -j 1 and
# -j 2, the disk full from some write on (sticky), one write failing alone, and a disk that
# holds only so many bytes (TL_FAIL_DISK: the write that fills it is short, the next fails).
python3 "$here/make_rank_logs.py" ranks-in --ranks 4 --gather 3 >/dev/null || echo "outsafety: make_rank_logs.py failed"
"$bin" --all-ranks-html ranks-in -o ranks-want --no-browser >/dev/null 2>&1 || echo "outsafety: the multi-rank reference run failed"
"$bin" --all-ranks-html ranks-in -o ranks-old -j 1 --no-browser >/dev/null 2>&1 || echo "outsafety: the old multi-rank run failed"
echo "an old note" >ranks-old/marker.txt
ranks_bytes=$(find ranks-want -type f -printf '%s\n' | awk '{ n += $1 } END { print n }')
ranks_fresh() { rm -rf p && mkdir -p p/q; }
ranks_old() { rm -rf p && mkdir -p p/q && cp -a ranks-old p/q/out; }
# ranks_shim STATE J ENV...: a multi-rank run into p/q/out (--overwrite onto an old report)
# with the failures ENV; checks what it did; sets $injected
ranks_shim() {
    local state=$1 j=$2 before args=(-o p/q/out -j "$2")
    shift 2
    "ranks_$state"
    [ "$state" = old ] && args+=(--overwrite)
    before=$(listing p/q/out)
    rm -f fl.txt
    env LD_PRELOAD="$preload" ASAN_OPTIONS="$asan_opts" TL_FAIL_LOG="$tmp/fl.txt" \
        TL_FAIL_SKIP=ranks-in "$@" "$bin" --all-ranks-html ranks-in --no-browser "${args[@]}" \
        >out.txt 2>err.txt
    rc=$?
    injected=$([ -e fl.txt ] && echo 1)
    local what="$* -j $j ($state)"
    if [ -z "$injected" ]; then
        [ "$rc" = 0 ] || bad "$what, nothing injected: exit $rc; $(head -c 300 err.txt)"
        rm -rf got.s want.s && cp -r p/q/out got.s && cp -r ranks-want want.s &&
            python3 "$here/strip_runinfo.py" got.s want.s
        diff -r want.s got.s >/dev/null 2>&1 || bad "$what, nothing injected: not the whole report"
        no_temp p/q
        return
    fi
    [ "$rc" = 1 ] || bad "$what ($(head -1 fl.txt)): exit $rc, want 1; stderr: $(head -c 400 err.txt)"
    local errs others
    errs=$(grep '^tlparse: error: ' err.txt)
    others=$(grep -v -e '^tlparse: error: ' -e '^Stats {' -e '^Processing rank ' err.txt)
    [ "$(grep -c '^tlparse: error: ' err.txt)" = 1 ] || bad "$what: want one error line, got: $(head -c 600 err.txt)"
    grep -qE '^tlparse: error: [^:]* p/q/out(/[^:]*)?: No space left on device$' err.txt ||
        bad "$what: the error does not name the output and ENOSPC: $errs"
    [ -z "$others" ] || bad "$what: other lines (a warning? the closing line?): $(echo "$others" | head -3)"
    [ "$before" = "$(listing p/q/out)" ] || bad "$what ($(head -1 fl.txt)): the output folder changed: $(diff <(echo "$before") <(listing p/q/out) | head -4)"
    [ "$(ls -A p/q)" = "$([ "$state" = old ] && echo out)" ] || bad "$what: left in p/q: $(ls -A p/q)"
    no_temp p/q
}
# ranks_every STATE J CALL [:sticky]: fail CALL number N for N = 0, STEP, 2*STEP ... until a run
# gets through
ranks_every() {
    local state=$1 j=$2 call=$3 mode=${4:-} n runs=0
    for n in $(seq 0 7 700); do
        ranks_shim "$state" "$j" TL_FAIL="$call:$n:ENOSPC$mode"
        [ -n "$injected" ] || break
        runs=$((runs + 1))
    done
    [ "$runs" -gt 3 ] || bad "$call$mode -j $j: only $runs runs failed"
}
for j in 1 2; do
    begin "ranks_disk_full_j$j"
    ranks_every fresh "$j" write :sticky
    ranks_every old "$j" write :sticky
    begin "ranks_one_write_fails_j$j"
    ranks_every fresh "$j" write
    ranks_every old "$j" write
    begin "ranks_copy_fails_j$j"
    ranks_every fresh "$j" copy_file_range :sticky
    begin "ranks_disk_fills_up_j$j"
    for pct in 1 25 50 75 90 97 99; do
        ranks_shim fresh "$j" TL_FAIL_DISK=$((ranks_bytes * pct / 100))
        [ -n "$injected" ] || bad "TL_FAIL_DISK at $pct% of $ranks_bytes bytes, -j $j: nothing failed"
    done
    ranks_shim old "$j" TL_FAIL_DISK=$((ranks_bytes / 2))
    ranks_shim fresh "$j" TL_FAIL_DISK=$((ranks_bytes * 4))
    [ -z "$injected" ] || bad "TL_FAIL_DISK at 4 times the report, -j $j: a write failed"
done

begin ranks_existing_folder_untouched_without_overwrite
ranks_old
before=$(listing p/q)
"$bin" --all-ranks-html ranks-in -o p/q/out --no-browser >out.txt 2>err.txt
rc=$?
[ "$rc" = 1 ] || bad "exit $rc, want 1"
[ "$(cat err.txt)" = "tlparse: error: Directory p/q/out already exists; pass --overwrite to replace it or use -o OUTDIR" ] ||
    bad "stderr: $(cat err.txt)"
[ "$before" = "$(listing p/q)" ] || bad "p/q changed"

pids=()
tally
summary_line outsafety
