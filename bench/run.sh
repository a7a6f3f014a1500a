#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `make bench`: time build/tlparse on big generated logs (warm page cache) next to two floors,
# a plain `cp` of the same file and bench/floor (the log read once and the report's files
# written again, the same sizes, no parsing), and to the reference as users install it (pip
# install tlparse, in a venv of its own); print one table row per binary and size. Builds only
# bench/floor.c (into bench/out, with cc).
#   BENCH_SIZES="200 1024"   log sizes in MiB (default 200); logs are kept in bench/out/ and reused
#   BENCH_RUNS=3             runs per measurement; the best is reported, for cp as for tlparse
#                            (and in the first table their median too)
#   BENCH_THREADS="on off"   rows with tlparse's helper threads on, and off (TLPARSE_NO_THREADS=1)
#   BENCH_PREFAULT=0         do not touch memory before each timed command (see below)
#   BENCH_KEEP=1             keep this run's reports (the next run deletes them after its timings)
#   TLPARSE="a b"            binaries to measure, side by side (default build/tlparse); runs of
#                            all of them alternate, so that a before/after comparison sees the
#                            same machine
#   BENCH_SHARED=dir         where the shared corpus lives (default ../shared)
#   BENCH_REFERENCE=0        no reference row; BENCH_REF_VENV=dir: its venv (default
#                            build/bench/ref-venv, made by the first run and reused)
#   BENCH_CALLGRIND=0        do not count instructions on a 20 MiB log with callgrind (compared with
#                            bench/baseline.txt, and the diagnosis's share of them);
#                            BENCH_UPDATE_BASELINE=1 rewrites that file
#   BENCH_SUMMARY_SIZES="1024"  log sizes for the diagnosis-only rows (--json, no report; "": none)
#   BENCH_DIFF_SIZES="1024"  log sizes for the `tlparse diff --json` rows (a log and a copy; "": none)
#   BENCH_RANKS="8"          multi-rank rows: this many rank logs (0: none) of
#   BENCH_RANK_MB=100        this many MiB each, parsed with --all-ranks-html at
#   BENCH_RANK_JOBS="1 2"    these -j values (wall time and peak RSS, best of BENCH_RUNS)
#   BENCH_WATCH_SECONDS=20   the CPU of an idle --watch over this long (bench/watch_idle.sh; 0: none)
#   BENCH_WATCH_GROW_SECONDS=20  --watch of the 200 MiB log written over this long, its CPU against
#                            a batch run's (bench/watch_grow.sh; 0: none)
#   BENCH_GOALS=0            leave out the table of the speed goals (bench/goals.py: paired runs,
#                            BENCH_GOAL_RUNS pairs each, default 3; its 200 MiB row against the
#                            reference runs TLPARSE_REFERENCE, else the pip-installed one)
# Logs are grown from ../shared/corpus/logs/cache_hit_miss.log by ../shared/bench/make_big_trace.py,
# or, without ../shared, from tests/fixtures/demo.log by scripts/grow_trace.py.
#
# No report is deleted before or between timed runs: each run writes a new folder, and all are
# removed at the end. On ext4 without a journal, creating files shortly after many were deleted
# is slow: the inode allocator skips every inode freed in the last minute (five, while its block
# is dirty), one buffer lookup each, and a run after `rm -rf` of an old report spent 75% of its
# time there. The script warns when its own last clean-up is that recent.
#
# Before each timed command (cp and tlparse alike) a throw-away process touches and frees about
# 2.5 times the log's size of memory. In a virtual machine whose memory the host backs lazily
# (and takes back when the guest frees it), the first write to a page costs a fault in the host;
# the page cache a run fills is such memory, and without this step the same command varied by
# 2x from run to run here (a `cp` of 200 MiB: 0.06 s to 0.5 s).
set -euo pipefail

cd "$(dirname "$0")/.."
TLPARSE=${TLPARSE:-build/tlparse}
SIZES=${BENCH_SIZES:-200}
OUT=bench/out
RUNS_DIR=$OUT/runs
STAMP=$OUT/.cleaned-at
RUNS=${BENCH_RUNS:-3}
THREADS=${BENCH_THREADS:-on off}
SHARED=${BENCH_SHARED:-../shared}
BASELINE=bench/baseline.txt

die() {
    echo "bench: $*" >&2
    exit 1
}

command -v python3 >/dev/null 2>&1 ||
    die "python3 is needed to generate the big logs (scripts/deps.sh bench installs it)"
[ -x /usr/bin/time ] || die "/usr/bin/time is needed (Debian package 'time'; scripts/deps.sh bench)"
for bin in $TLPARSE; do
    if [ ! -x "$bin" ] && ! command -v "$bin" >/dev/null 2>&1; then
        die "no tlparse binary at '$bin': run 'make' first, or set TLPARSE=/path/to/tlparse"
    fi
done
case $RUNS in '' | *[!0-9]* | 0) die "BENCH_RUNS must be a positive whole number, got '$RUNS'" ;; esac
mkdir -p "$OUT"
if [ -d "$RUNS_DIR" ]; then
    # Left by an interrupted run: move it aside now, delete it after the timings.
    mv "$RUNS_DIR" "$OUT/stale.$$"
fi
mkdir -p "$RUNS_DIR"
cleanup() {
    local doomed=("$OUT"/stale.*)
    [ "${BENCH_KEEP:-0}" = 1 ] || doomed+=("$RUNS_DIR")
    if [ -e "${doomed[0]}" ] || [ ${#doomed[@]} -gt 1 ]; then
        rm -rf "${doomed[@]}"
        date +%s >"$STAMP"
    fi
}
trap cleanup EXIT
if [ -f "$STAMP" ]; then
    ago=$(($(date +%s) - $(cat "$STAMP")))
    if [ "$ago" -lt 360 ]; then
        echo "bench: note: the last bench deleted its reports ${ago}s ago; on ext4 without a journal," \
            "file creation is slower for up to 360s after a mass deletion" >&2
    fi
fi

if [ -f "$SHARED/bench/make_big_trace.py" ] && [ -f "$SHARED/corpus/logs/cache_hit_miss.log" ]; then
    GEN=("$SHARED/bench/make_big_trace.py")
    SEED="$SHARED/corpus/logs/cache_hit_miss.log"
else
    echo "bench: $SHARED/bench or $SHARED/corpus not found; growing tests/fixtures/demo.log instead" >&2
    [ -f tests/fixtures/demo.log ] ||
        die "tests/fixtures/demo.log is missing (python3 scripts/make_demo_trace.py -o tests/fixtures/demo.log)"
    GEN=(scripts/grow_trace.py)
    SEED=tests/fixtures/demo.log
fi

# make_log MB PATH: write a log of at least MB MiB to PATH, unless PATH already holds one made
# the same way (the generator and seed are recorded next to it in PATH.how).
make_log() {
    local mb=$1 path=$2 how have want
    how="${GEN[*]} --size-mb $mb $SEED"
    want=$((mb * 1024 * 1024))
    if [ -f "$path" ] && [ -f "$path.how" ] && [ "$(cat "$path.how")" = "$how" ]; then
        have=$(stat -c %s "$path")
        [ "$have" -ge "$want" ] && return 0
    fi
    echo "bench: generating $path ($mb MiB) ..." >&2
    rm -f "$path" "$path.how"
    python3 "${GEN[@]}" --size-mb "$mb" -o "$path.part" "$SEED" >&2
    mv "$path.part" "$path"
    echo "$how" >"$path.how"
}

# make_ranks N MB: a folder of N rank logs of MB MiB each (kept and reused as make_log's); its
# path on stdout.
make_ranks() {
    local nranks=$1 rmb=$2 dir how
    dir="$OUT/ranks${nranks}x$rmb"
    how="${GEN[*]} --size-mb $rmb --ranks $nranks $SEED"
    if [ ! -f "$dir/.how" ] || [ "$(cat "$dir/.how")" != "$how" ]; then
        echo "bench: generating $nranks rank logs of $rmb MiB in $dir ..." >&2
        rm -rf "$dir"
        if [ "${GEN[0]}" = scripts/grow_trace.py ]; then
            mkdir -p "$dir"
            python3 "${GEN[@]}" --size-mb "$rmb" -o "$dir/dedicated_log_torch_trace_rank_0.log" "$SEED" >&2
            for r in $(seq 1 $((nranks - 1))); do
                cp "$dir/dedicated_log_torch_trace_rank_0.log" "$dir/dedicated_log_torch_trace_rank_$r.log"
            done
        else
            python3 "${GEN[@]}" --size-mb "$rmb" --ranks "$nranks" -o "$dir" "$SEED" >&2
        fi
        echo "$how" >"$dir/.how"
    fi
    echo "$dir"
}

# Nanosecond clock difference as seconds with 3 decimals.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }

# warm FILE: read it once so the timed run sees a warm page cache, and flush dirty pages
# (left by the generator or an earlier run) so writeback throttling does not land in the timing.
warm() {
    cat "$1" >/dev/null
    sync
    if [ "${BENCH_PREFAULT:-1}" != 0 ]; then
        python3 -c 'import sys; b = b"\1" * int(sys.argv[1])' "$(($(stat -c %s "$1") * 5 / 2))"
    fi
}

# best A B: the smaller of two times, A may be empty.
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

# A field of the GNU `time -v` report, e.g. "Maximum resident set size (kbytes): 1234".
time_field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }

# The floor (bench/floor.c): the log read once and the files of one of our reports (the last
# binary's, in the first round) written again, their sizes the same, with no parsing: what
# the kernel needs. Built here, into bench/out, when older than its source.
FLOOR=$OUT/floor
if [ ! -x "$FLOOR" ] || [ bench/floor.c -nt "$FLOOR" ]; then
    command -v cc >/dev/null 2>&1 || die "cc is needed to build bench/floor.c (scripts/deps.sh build)"
    cc -O2 -std=c17 -Wall -Wextra -o "$FLOOR" bench/floor.c || die "bench/floor.c does not build"
fi

# The reference as its users install it: `pip install tlparse` into a venv of its own, made once
# and reused (BENCH_REF_VENV; BENCH_REFERENCE=0: no reference row). Without PyPI, a note.
REF_VENV=${BENCH_REF_VENV:-build/bench/ref-venv}
REF_BIN= REF_NAME=
if [ "${BENCH_REFERENCE:-1}" != 0 ]; then
    if [ ! -x "$REF_VENV/bin/tlparse" ]; then
        echo "bench: installing the reference (pip install tlparse) into $REF_VENV ..." >&2
        rm -rf "$REF_VENV"
        mkdir -p "$(dirname "$REF_VENV")"
        { python3 -m venv "$REF_VENV" && "$REF_VENV/bin/pip" install -q tlparse; } >"$OUT/ref-venv.log" 2>&1 ||
            echo "bench: note: no reference row: pip install tlparse failed (see $OUT/ref-venv.log)" >&2
    fi
    if [ -x "$REF_VENV/bin/tlparse" ]; then
        REF_BIN=$REF_VENV/bin/tlparse
        REF_NAME="reference (pip $("$REF_VENV/bin/python" -c \
            'import importlib.metadata as m; print(m.version("tlparse"))' 2>/dev/null || echo '?'))"
    fi
fi

# median "T1 T2 ...": the median of the times.
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ t[NR] = $1 } END {
    printf "%.3f", (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }

# timed KEY CMD...: run CMD once on a warm log (stdout and stderr into $OUT), its wall time added
# to walls[KEY]; when the fastest so far, the rest of its figures kept from `time -v` (outb from
# the folder $dest, which the caller sets to where CMD writes).
timed() {
    local key=$1 w t0 t1
    shift
    warm "$log"
    # Wall time from the ns clock (time -v only has 10 ms resolution); the rest from time -v.
    t0=$(date +%s%N)
    if ! /usr/bin/time -v -o "$OUT/time.txt" "$@" >"$OUT/tlparse.stdout" 2>"$OUT/tlparse.stderr"; then
        tail -n 5 "$OUT/tlparse.stderr" >&2
        die "$* failed (stderr in $OUT/tlparse.stderr)"
    fi
    t1=$(date +%s%N)
    sync
    w=$(elapsed "$t0" "$t1")
    walls[$key]="${walls[$key]:-} $w"
    if [ -z "${wall[$key]:-}" ] || awk -v a="$w" -v b="${wall[$key]}" 'BEGIN { exit !(a < b) }'; then
        wall[$key]=$w
        user[$key]=$(time_field 'User time (seconds)' "$OUT/time.txt")
        sys[$key]=$(time_field 'System time (seconds)' "$OUT/time.txt")
        rss[$key]=$(time_field 'Maximum resident set size (kbytes)' "$OUT/time.txt")
        outb[$key]=$(du -sb "$dest" | cut -f1)
    fi
}

header=$(printf '%-24s %8s %7s %8s %8s %8s %8s %12s %8s %7s %8s %10s %8s %7s' \
    binary size_MB threads wall_s user_s sys_s MB/s peak_RSS_MB out_MB cp_s wall/cp Mlines/s med_s x_floor)
rows=()
run_no=0
declare -A wall user sys rss outb walls
for mb in $SIZES; do
    case $mb in '' | *[!0-9]*) die "BENCH_SIZES must hold whole MiB numbers, got '$mb'" ;; esac
    log="$OUT/big$mb.log"
    make_log "$mb" "$log"
    bytes=$(stat -c %s "$log")
    lines=$(wc -l <"$log")
    variants=()
    for bin in $TLPARSE; do
        for threads in $THREADS; do
            case $threads in on | off) ;; *) die "BENCH_THREADS holds 'on' and/or 'off', got '$threads'" ;; esac
            variants+=("$bin $threads")
        done
    done
    nv=${#variants[@]}
    # the variant whose report the floor writes again
    model="${TLPARSE##* } ${THREADS%% *}"
    # Every run's output is kept until the end (see above): about 2.2 times the log each (the
    # floor's and the reference's too), plus the copies.
    need=$((RUNS * (2 + 5 * (nv + 2)) * bytes / 2))
    have=$(($(df -Pk "$RUNS_DIR" | awk 'NR == 2 { print $4 }') * 1024))
    [ "$have" -ge "$need" ] ||
        die "$((need >> 30)) GiB of free disk are needed for the ${mb} MiB rows, $((have >> 30)) GiB are free (fewer BENCH_RUNS, BENCH_THREADS or binaries need less)"
    cp_s=
    wall=() user=() sys=() rss=() outb=() walls=()
    manifest="$OUT/manifest$mb.txt"
    rm -f "$manifest"
    # Rounds: the floor of a cp of the log, then every variant once, starting one further
    # each round, so that none always runs first or right after the cp; then the floor of
    # bench/floor and the reference.
    for round in $(seq "$RUNS"); do
        run_no=$((run_no + 1))
        warm "$log"
        t0=$(date +%s%N)
        cp "$log" "$RUNS_DIR/cp$run_no.tmp"
        t1=$(date +%s%N)
        sync
        cp_s=$(best "$cp_s" "$(elapsed "$t0" "$t1")")
        for k in $(seq 0 $((nv - 1))); do
            v=${variants[$(((k + round) % nv))]}
            bin=${v% *}
            no_threads=
            [ "${v##* }" = off ] && no_threads=1
            run_no=$((run_no + 1))
            dest="$RUNS_DIR/report$run_no"
            TLPARSE_NO_THREADS=$no_threads timed "$v" "$bin" "$log" -o "$dest" --no-browser --no-progress
            if [ "$v" = "$model" ] && [ ! -f "$manifest" ]; then
                (cd "$dest" && find . -type f -printf '%s\t%P\n') >"$manifest"
            fi
        done
        run_no=$((run_no + 1))
        dest="$RUNS_DIR/floor$run_no"
        timed floor "$FLOOR" "$log" "$dest" "$manifest"
        if [ -n "$REF_BIN" ]; then
            run_no=$((run_no + 1))
            dest="$RUNS_DIR/reference$run_no"
            timed reference "$REF_BIN" "$log" -o "$dest" --no-browser
        fi
    done
    floor_med=$(median "${walls[floor]}")
    keys=("${variants[@]}" floor)
    [ -n "$REF_BIN" ] && keys+=(reference)
    for v in "${keys[@]}"; do
        case $v in
        floor) name="floor (bench/floor.c)" threads=- ;;
        reference) name=$REF_NAME threads=- ;;
        *) name=${v% *} threads=${v##* } ;;
        esac
        [ ${#name} -le 24 ] || name="...${name: -21}"
        rows+=("$(awk -v n="$name" -v b="$bytes" -v t="$threads" -v w="${wall[$v]}" -v u="${user[$v]}" \
            -v s="${sys[$v]}" -v r="${rss[$v]}" -v o="${outb[$v]}" -v c="$cp_s" -v l="$lines" \
            -v m="$(median "${walls[$v]}")" -v f="$floor_med" 'BEGIN {
                mib = 1048576; ww = (w > 0) ? w : 0.001
                printf "%-24s %8.1f %7s %8.3f %8.2f %8.2f %8.1f %12.1f %8.1f %7.3f %8.1f %10.2f %8.3f %7.2f",
                    n, b / mib, t, w, u, s, b / mib / ww, r / 1024, o / mib, c, (c > 0) ? w / c : 0,
                    l / ww / 1e6, m, (f > 0) ? m / f : 0
            }')")
    done
done

echo "logs: grown from $SEED    (MB = MiB, warm page cache, best of $RUNS rounds; med_s: their"
echo "median, x_floor: med_s / the floor's med_s)"
echo "$header"
printf '%s\n' "${rows[@]}"

# --summary and --json: the diagnosis alone, no report written; they should run at the speed
# of reading and decoding, in constant memory.
echo
echo "diagnosis only (--json, no report), best of $RUNS:"
printf '%-24s %8s %8s %8s %12s\n' binary size_MB wall_s MB/s peak_RSS_MB
for mb in ${BENCH_SUMMARY_SIZES-1024}; do
    case $mb in '' | *[!0-9]*) die "BENCH_SUMMARY_SIZES must hold whole MiB numbers, got '$mb'" ;; esac
    log="$OUT/big$mb.log"
    make_log "$mb" "$log"
    bytes=$(stat -c %s "$log")
    for bin in $TLPARSE; do
        bw= brss=
        for round in $(seq "$RUNS"); do
            warm "$log"
            t0=$(date +%s%N)
            /usr/bin/time -v -o "$OUT/time.txt" "$bin" "$log" --json >"$OUT/summary.json" \
                2>"$OUT/tlparse.stderr" || die "$bin --json failed on $log"
            t1=$(date +%s%N)
            w=$(elapsed "$t0" "$t1")
            if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then
                bw=$w
                brss=$(time_field 'Maximum resident set size (kbytes)' "$OUT/time.txt")
            fi
        done
        name=$bin
        [ ${#name} -le 24 ] || name="...${name: -21}"
        awk -v n="$name" -v b="$bytes" -v w="$bw" -v r="$brss" 'BEGIN {
            mib = 1048576; ww = (w > 0) ? w : 0.001
            printf "%-24s %8.1f %8.3f %8.1f %12.1f\n", n, b / mib, w, b / mib / ww, r / 1024 }'
    done
done

# `tlparse diff --json A B`: both sides read at once (two threads), so two logs should take
# about the time of one, not of two; memory is two diagnoses. B is a copy of A (another file,
# so that each is read from its own pages), paired with a run of `--json A` in every round.
echo
echo "diff of two logs (diff --json A B, against --json A alone), best of $RUNS:"
printf '%-24s %8s %10s %10s %8s %12s\n' binary size_MB diff_s one_s ratio peak_RSS_MB
for mb in ${BENCH_DIFF_SIZES-1024}; do
    case $mb in '' | *[!0-9]*) die "BENCH_DIFF_SIZES must hold whole MiB numbers, got '$mb'" ;; esac
    log="$OUT/big$mb.log"
    make_log "$mb" "$log"
    copy="$OUT/big$mb.copy.log"
    [ -f "$copy" ] && [ "$(stat -c %s "$copy")" = "$(stat -c %s "$log")" ] || cp "$log" "$copy"
    bytes=$(stat -c %s "$log")
    for bin in $TLPARSE; do
        bd= bo= brss=
        for round in $(seq "$RUNS"); do
            warm "$log"
            warm "$copy"
            t0=$(date +%s%N)
            /usr/bin/time -v -o "$OUT/time.txt" "$bin" diff --json "$log" "$copy" >"$OUT/diff.json" \
                2>"$OUT/tlparse.stderr" || die "$bin diff --json failed on $log"
            t1=$(date +%s%N)
            w=$(elapsed "$t0" "$t1")
            if [ -z "$bd" ] || awk -v a="$w" -v b="$bd" 'BEGIN { exit !(a < b) }'; then
                bd=$w
                brss=$(time_field 'Maximum resident set size (kbytes)' "$OUT/time.txt")
            fi
            warm "$log"
            t0=$(date +%s%N)
            "$bin" "$log" --json >"$OUT/summary.json" 2>"$OUT/tlparse.stderr" ||
                die "$bin --json failed on $log"
            t1=$(date +%s%N)
            w=$(elapsed "$t0" "$t1")
            bo=$(best "$bo" "$w")
        done
        grep -q '"changes": 0,' "$OUT/diff.json" || die "$bin diff of $log with its copy found changes"
        name=$bin
        [ ${#name} -le 24 ] || name="...${name: -21}"
        awk -v n="$name" -v b="$bytes" -v d="$bd" -v o="$bo" -v r="$brss" 'BEGIN {
            oo = (o > 0) ? o : 0.001
            printf "%-24s %8.1f %10.3f %10.3f %8.2f %12.1f\n", n, b / 1048576, d, o, d / oo, r / 1024 }'
    done
done

# --all-ranks-html: the ranks parsed on a pool of threads; peak memory should be that of the
# workers, not of the ranks.
for nranks in ${BENCH_RANKS:-8}; do
    case $nranks in '' | *[!0-9]*) die "BENCH_RANKS must hold whole numbers, got '$nranks'" ;; esac
    [ "$nranks" -gt 0 ] || continue
    rmb=${BENCH_RANK_MB:-100}
    case $rmb in '' | *[!0-9]* | 0) die "BENCH_RANK_MB must be a positive whole number, got '$rmb'" ;; esac
    dir=$(make_ranks "$nranks" "$rmb")
    total=$(du -cb "$dir"/*.log | tail -n 1 | cut -f1)
    echo
    echo "multi-rank (--all-ranks-html): $nranks ranks x $rmb MiB, best of $RUNS:"
    printf '%-24s %6s %8s %8s %8s %12s\n' binary jobs wall_s user_s MB/s peak_RSS_MB
    for bin in $TLPARSE; do
        for jobs in ${BENCH_RANK_JOBS:-1 2}; do
            bw= bu= brss=
            for round in $(seq "$RUNS"); do
                run_no=$((run_no + 1))
                cat "$dir"/*.log >/dev/null
                sync
                t0=$(date +%s%N)
                /usr/bin/time -v -o "$OUT/time.txt" "$bin" --all-ranks-html "$dir" -j "$jobs" \
                    -o "$RUNS_DIR/ranks$run_no" --no-browser --no-progress \
                    >"$OUT/tlparse.stdout" 2>"$OUT/tlparse.stderr" ||
                    die "$bin --all-ranks-html failed on $dir (stderr in $OUT/tlparse.stderr)"
                t1=$(date +%s%N)
                sync
                w=$(elapsed "$t0" "$t1")
                if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then
                    bw=$w
                    bu=$(time_field 'User time (seconds)' "$OUT/time.txt")
                    brss=$(time_field 'Maximum resident set size (kbytes)' "$OUT/time.txt")
                fi
            done
            name=$bin
            [ ${#name} -le 24 ] || name="...${name: -21}"
            awk -v n="$name" -v j="$jobs" -v b="$total" -v w="$bw" -v u="$bu" -v r="$brss" 'BEGIN {
                mib = 1048576; ww = (w > 0) ? w : 0.001
                printf "%-24s %6s %8.3f %8.2f %8.1f %12.1f\n", n, j, w, u, b / mib / ww, r / 1024 }'
        done
    done
done

# --bundle FILE.html: the report as one self-contained page. Its size, the time to write it,
# and in headless Chromium (tests/e2e/test_bundle.py --open-time, best of BENCH_RUNS fresh
# tabs) the ms from navigation start to the index's first slice and all of it painted, and
# to the whole page parsed. BENCH_BUNDLE_SIZES="" leaves it out; no chromium: a note.
if [ -n "${BENCH_BUNDLE_SIZES-200}" ]; then
    echo
    echo "single-file bundle (--bundle FILE.html), open in headless Chromium, best of $RUNS:"
    printf '%-24s %8s %10s %8s %14s %9s %10s\n' binary size_MB bundle_MB write_s first_paint_ms index_ms parsed_ms
    chromium=${CHROMIUM:-/usr/bin/chromium}
    for mb in ${BENCH_BUNDLE_SIZES-200}; do
        case $mb in '' | *[!0-9]*) die "BENCH_BUNDLE_SIZES must hold whole MiB numbers, got '$mb'" ;; esac
        log="$OUT/big$mb.log"
        make_log "$mb" "$log"
        for bin in $TLPARSE; do
            name=$bin
            [ ${#name} -le 24 ] || name="...${name: -21}"
            if ! "$bin" --help 2>/dev/null | grep -q -- '--bundle'; then
                printf '%-24s %8s   (no --bundle in this binary)\n' "$name" "$mb"
                continue
            fi
            run_no=$((run_no + 1))
            page="$RUNS_DIR/bundle$run_no.html"
            warm "$log"
            t0=$(date +%s%N)
            "$bin" "$log" --bundle "$page" --no-browser --no-progress >"$OUT/tlparse.stdout" \
                2>"$OUT/tlparse.stderr" || die "$bin --bundle failed on $log (stderr in $OUT/tlparse.stderr)"
            t1=$(date +%s%N)
            if [ -x "$chromium" ]; then
                times=$(python3 tests/e2e/test_bundle.py --open-time "$page" "$RUNS" 2>"$OUT/open.stderr") ||
                    die "opening $page in $chromium failed (see $OUT/open.stderr)"
            else
                times=
            fi
            [ -n "$times" ] || times="- - -"
            read -r fp ix ps <<<"$times"
            awk -v n="$name" -v mb="$mb" -v b="$(stat -c %s "$page")" -v w="$(elapsed "$t0" "$t1")" \
                -v fp="$fp" -v ix="$ix" -v ps="$ps" 'BEGIN {
                printf "%-24s %8s %10.1f %8s %14s %9s %10s\n", n, mb, b / 1048576, w, fp, ix, ps }'
        done
    done
    [ -x "$chromium" ] || echo "(no $chromium: open times not measured; on Debian: apt-get install chromium)"
fi

if [ "${BENCH_CALLGRIND:-1}" = 1 ]; then
    command -v valgrind >/dev/null 2>&1 ||
        die "BENCH_CALLGRIND=1 needs valgrind (Debian package 'valgrind'; scripts/deps.sh bench)"
    log="$OUT/big20.log"
    make_log 20 "$log"
    # One thread: instruction counts that do not depend on scheduling.
    # The last binary of TLPARSE (the "after" of a comparison).
    TLPARSE_NO_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" \
        "${TLPARSE##* }" "$log" -o "$RUNS_DIR/report-cg" --no-browser \
        >"$OUT/callgrind.stdout" 2>"$OUT/callgrind.stderr" ||
        die "callgrind run failed (see $OUT/callgrind.stderr)"
    ir=$(sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$OUT/cg.out" | tail -n 1)
    [ -n "$ir" ] || ir=$(sed -n 's/^summary: *\([0-9][0-9]*\).*/\1/p' "$OUT/cg.out" | tail -n 1)
    [ -n "$ir" ] || die "no 'totals:' or 'summary:' line in $OUT/cg.out"
    echo "callgrind: $ir instructions (Ir) on a 20 MiB log"
    # The diagnosis's share of a full run: what the engine hands it per record and at the end,
    # inclusive (model/diag_trace.c).
    diag=$(callgrind_annotate --inclusive=yes "$OUT/cg.out" 2>/dev/null |
        awk '/[:]tl_diag_trace_(record|finish)[ ]/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
    awk -v d="$diag" -v n="$ir" 'BEGIN { printf "callgrind: the diagnosis: %d Ir, %.2f%% of the run\n", d, d * 100 / n }'
    base=
    [ -f "$BASELINE" ] && base=$(grep -E '^[0-9]+$' "$BASELINE" | head -n 1 || true)
    if [ -n "$base" ]; then
        awk -v n="$ir" -v b="$base" 'BEGIN { printf "callgrind: baseline %d Ir, change %+.2f%%\n", b, (n - b) * 100 / b }'
        grep -qxF "# log: $(cat "$log.how")" "$BASELINE" ||
            echo "callgrind: note: the baseline was measured on a log made differently ($BASELINE)"
    else
        echo "callgrind: no baseline in $BASELINE (BENCH_UPDATE_BASELINE=1 writes one)"
    fi
    if [ "${BENCH_UPDATE_BASELINE:-0}" = 1 ]; then
        {
            echo "# callgrind Ir of tlparse on bench/out/big20.log ($(basename "$SEED") grown to 20 MiB);"
            echo "# written by BENCH_CALLGRIND=1 BENCH_UPDATE_BASELINE=1 bench/run.sh"
            echo "# log: $(cat "$log.how")"
            echo "$ir"
        } >"$BASELINE"
        echo "callgrind: baseline written to $BASELINE"
    fi
fi

# The speed goals, from paired runs (bench/goals.py): 200 MiB against the reference binary
# (TLPARSE_REFERENCE, else the venv's), 200 MiB against the floor (on a settled disk, and run
# again right after the last report was deleted), 1 GiB against 200 MiB, 8 ranks of 100 MiB at -j 2 against
# -j 1, 64 ranks against 8 (4 MiB each) per rank, the peak RSS at 1 GiB. BENCH_GOALS=0 leaves
# it out; BENCH_GOAL_RUNS pairs (default 3).
if [ "${BENCH_GOALS:-1}" = 1 ]; then
    make_log 200 "$OUT/big200.log"
    make_log 1024 "$OUT/big1024.log"
    # the reference's row: TLPARSE_REFERENCE, else the one pip installed above
    TLPARSE_REFERENCE=${TLPARSE_REFERENCE:-$REF_BIN} \
        python3 bench/goals.py --tlparse "${TLPARSE##* }" --log200 "$OUT/big200.log" \
        --log1g "$OUT/big1024.log" --ranks "$(make_ranks 8 100)" --runs-dir "$RUNS_DIR" \
        --many "$(make_ranks 64 4)" "$(make_ranks 8 4)" --runs "${BENCH_GOAL_RUNS:-3}" \
        --floor "$FLOOR"
fi

# An idle --watch: its CPU share (BENCH_WATCH_SECONDS, default 20; 0: none).
if [ "${BENCH_WATCH_SECONDS:-20}" != 0 ]; then
    bench/watch_idle.sh "${TLPARSE##* }" "${BENCH_WATCH_SECONDS:-20}"
fi

# --watch of a log growing to 200 MiB against a batch run of it (bench/watch_grow.sh): total
# CPU, BENCH_WATCH_GROW_SECONDS (default 20; 0: none) of writing, BENCH_GOAL_RUNS pairs.
if [ "${BENCH_WATCH_GROW_SECONDS:-20}" != 0 ]; then
    make_log 200 "$OUT/big200.log"
    bench/watch_grow.sh "${TLPARSE##* }" "$OUT/big200.log" "${BENCH_WATCH_GROW_SECONDS:-20}" \
        "${BENCH_GOAL_RUNS:-3}"
fi
