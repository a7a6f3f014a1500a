#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What `tlparse --watch` costs on a log that grows: a writer appends LOG to a new log in 4 MiB
# pieces (each cut before an entry's first line, as PyTorch writes whole entries) over about
# SECONDS, --watch follows it, keeping its live report current, until the writer is done and the
# watch is stopped; then a batch run reports on the same log. Total CPU (user + system, the
# processes each waited for included: the watch's generations) of each, in pairs, RUNS pairs;
# the medians and their ratio are printed (the goal: the watch at most 1.5x the batch run).
#   bench/watch_grow.sh TLPARSE LOG [SECONDS] [RUNS]   (make bench runs it: SECONDS 20, RUNS 3)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
log=$(realpath "$2")
secs=${3:-20}
runs=${4:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/writer.py" <<'PY'
import os, sys, time
src, dst, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
data = open(src, "rb").read()
step = 4 << 20
pieces = max(1, len(data) // step)
pause = secs / pieces
with open(dst, "wb", buffering=0) as f:
    at = 0
    while at < len(data):
        end = min(len(data), at + step)
        while end < len(data) and not (data[end - 1] == 10 and data[end] != 9):
            end += 1
        f.write(data[at:end])
        at = end
        time.sleep(pause)
PY
# cpu CMD...: user + system seconds of CMD (GNU time), its output thrown away
cpu() {
    local t="$tmp/time.$BASHPID"
    /usr/bin/time -f '%U %S' -o "$t" "$@" >/dev/null 2>&1 || true
    tail -1 "$t" | awk '{ printf "%.2f/%.2f/%.2f", $1 + $2, $1, $2 }'
}
median() { printf '%s\n' "$@" | sort -n | awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }
w=() b=()
for ((i = 0; i < runs; i++)); do
    rm -rf "$tmp/trace" "$tmp/w" "$tmp/b"
    mkdir "$tmp/trace"
    python3 "$tmp/writer.py" "$log" "$tmp/trace/t.log" "$secs" &
    wpid=$!
    ( cd "$tmp" && cpu "$bin" --watch --no-browser trace -o w >"$tmp/wcpu" ) &
    tpid=$!
    wait "$wpid"
    sleep 2
    pkill -INT -f "^$bin --watch --no-browser trace -o w" || true
    wait "$tpid" || true
    w+=("$(cat "$tmp/wcpu")")
    b+=("$(cd "$tmp" && cpu "$bin" --no-browser trace/t.log -o b)")
done
# total/user/system: the medians of the totals
tot() { for x in "$@"; do echo "${x%%/*}"; done; }
mw=$(median $(tot "${w[@]}"))
mb=$(median $(tot "${b[@]}"))
echo
echo "--watch of a log growing to $(($(stat -c %s "$log") >> 20)) MiB over ${secs} s: total CPU, median of $runs"
printf '%-8s %8s   %s\n' run cpu_s "runs (total/user/system)"
printf '%-8s %8s   %s\n' watch "$mw" "${w[*]}"
printf '%-8s %8s   %s\n' batch "$mb" "${b[*]}"
awk -v a="$mw" -v b="$mb" 'BEGIN { printf "watch / batch: %.2fx (goal: at most 1.5x)\n", a / b }'
