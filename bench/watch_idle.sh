#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What an idle `tlparse --watch` costs: it follows a log that does not grow (the demo trace,
# read at the start), and its CPU time (user + system, /proc/PID/stat) over SECONDS is printed as
# a share of one core, with inotify and with the poll (TLPARSE_WATCH_POLL).
#   bench/watch_idle.sh [TLPARSE] [SECONDS]     (make bench runs it; SECONDS default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/tlparse}")
secs=${2:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp tests/fixtures/demo.log "$tmp/train.log"
tick=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
echo
echo "--watch of a log that does not grow: CPU over ${secs} s (after a 3 s start)"
printf '%-10s %10s %12s\n' mode cpu_s core_%
for mode in inotify poll; do
    env=()
    [ "$mode" = poll ] && env=(TLPARSE_WATCH_POLL=1)
    (cd "$tmp" && exec env "${env[@]}" "$bin" --watch --no-browser train.log -o "out-$mode" >/dev/null 2>&1) &
    pid=$!
    sleep 3
    # the shell's child is tlparse itself (exec)
    a=$(cpu "$pid")
    sleep "$secs"
    b=$(cpu "$pid")
    kill -INT "$pid"
    wait "$pid" || true
    awk -v a="$a" -v b="$b" -v t="$tick" -v s="$secs" -v m="$mode" \
        'BEGIN { c = (b - a) / t; printf "%-10s %10.2f %11.2f%%\n", m, c, c * 100 / s }'
done
