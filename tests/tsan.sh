#!/usr/bin/env bash
# `make tsan`: the runs of tlparse that use threads, under ThreadSanitizer (build-tsan, clang
# -fsanitize=thread), each failing on the first data race it reports:
#   - three logs into a report (the md5 queue, the write-behind, raw.log's copy on threads);
#   - four ranks at once (--all-ranks-html -j 2);
#   - a diff of two logs read at once;
#   - --watch of a log being written, its report rebuilt on a thread beside the live view;
#   - --watch of 200 rank logs appearing at once, the multi-rank report rebuilt as they grow.
# Usage: tests/tsan.sh path/to/build-tsan/tlparse
set -euo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TSAN_OPTIONS=halt_on_error=1:exitcode=66
runs=0

fail() {
    echo "tsan: $1 failed:"
    cat "$tmp/err"
    exit 1
}

python3 "$here/../bench/make_many_ids.py" 3000 "$tmp/ids.log"
for log in "$here/fixtures/demo.log" "$here/fixtures/edge.log" "$tmp/ids.log"; do
    "$bin" "$log" -o "$tmp/out" --overwrite --no-browser 2>"$tmp/err" || fail "$log"
    runs=$((runs + 1))
done

mkdir "$tmp/ranks"
cp "$here/fixtures/demo.log" "$tmp/ranks/dedicated_log_torch_trace_rank_0.log"
cp "$here/fixtures/edge.log" "$tmp/ranks/dedicated_log_torch_trace_rank_1.log"
cp "$tmp/ids.log" "$tmp/ranks/dedicated_log_torch_trace_rank_2.log"
cp "$here/fixtures/demo.log" "$tmp/ranks/dedicated_log_torch_trace_rank_3.log"
"$bin" --all-ranks-html "$tmp/ranks" -j 2 -o "$tmp/mr" --no-browser 2>"$tmp/err" ||
    fail "--all-ranks-html"
runs=$((runs + 1))

"$bin" diff "$here/fixtures/demo.log" "$tmp/ids.log" -o "$tmp/diff" --no-browser 2>"$tmp/err" ||
    fail "diff"
runs=$((runs + 1))

# --watch of a log written 64 KiB at a time, then SIGINT: exit 0 and the report (its live
# report fed as the log comes, its generations made by forked copies).
: >"$tmp/t.log"
(cd "$tmp" && exec "$bin" --watch t.log -o watch --no-browser >/dev/null 2>err) &
pid=$!
python3 -c 'import sys, time
d = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "ab") as f:
    for i in range(0, len(d), 65536):
        f.write(d[i:i + 65536]); f.flush(); time.sleep(0.05)' "$tmp/ids.log" "$tmp/t.log"
sleep 3
kill -INT $pid
wait $pid || fail "--watch"
[ -s "$tmp/watch/index.html" ] || { echo "tsan: --watch wrote no report"; exit 1; }
runs=$((runs + 1))

# --watch of 200 rank logs appearing at once (renamed into the folder), then SIGINT.
mkdir "$tmp/stage" "$tmp/trace200"
for r in $(seq 0 199); do
    cp "$here/fixtures/edge.log" "$tmp/stage/dedicated_log_torch_trace_rank_${r}_x.log"
done
(cd "$tmp" && exec "$bin" --watch trace200 --all-ranks-html -o watch200 --no-browser \
    >watch200.out 2>err) &
pid=$!
sleep 0.5
for f in "$tmp"/stage/*; do mv "$f" "$tmp/trace200/"; done
for _ in $(seq 1 600); do
    [ "$(grep -c '^tlparse: following' "$tmp/watch200.out" || true)" -eq 200 ] && break
    sleep 0.1
done
sleep 2
kill -INT $pid
wait $pid || fail "--watch of 200 rank logs"
[ -s "$tmp/watch200/rank_199/index.html" ] || { echo "tsan: --watch of 200 ranks: no rank_199"; exit 1; }
runs=$((runs + 1))

echo "tsan: $runs runs (one of 4 ranks at -j 2, one diff of two logs read at once, two --watch" \
    "whose live reports fork their generations, one of them of 200 rank logs), no data race" \
    "reported"
