#!/bin/sh
# Run libFuzzer targets for a while each.
#
#   fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#
# TARGET is a name such as glog (default: every fuzz/fuzz_*.c with a binary).
# The binary is BUILD_DIR/fuzz/fuzz_<name> (a TL_FUZZ tree, `make fuzz`) or
# BUILD_DIR/fuzzsmoke_<name> (the fuzz-smoke ctests of a clang test build).
# Each run works on a temporary copy of fuzz/corpus/<name> plus, at run time
# only, seeds cut from ../shared/corpus/logs by fuzz/seeds.py when that
# folder and python3 are there (FUZZ_SHARED=0 skips them); the repository is
# never written to. It uses fuzz/dict/<name>.dict when present and prints the
# executions done; crash, leak, timeout and out-of-memory inputs are copied to
# BUILD_DIR/fuzz-findings/<name>/ and listed, and the exit status is 1.
#
# Environment: FUZZ_WORK=DIR keeps each target's working corpus in
# DIR/<name>/ across runs (for long campaigns); FUZZ_ARGS adds libFuzzer
# flags; FUZZ_SHARED=0 skips the shared seeds.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS [TARGET...]" >&2
    exit 2
fi
build=$1
secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
shared=$here/../../shared/corpus/logs

bin_of() {
    for b in "$build/fuzz/fuzz_$1" "$build/fuzzsmoke_$1"; do
        if [ -x "$b" ]; then
            echo "$b"
            return 0
        fi
    done
    return 1
}

max_len_of() {
    case $1 in
    pipeline) echo 65536 ;;
    diff) echo 16384 ;;
    reader | pyhl) echo 8192 ;;
    *) echo 4096 ;;
    esac
}

if [ $# -eq 0 ]; then
    for src in "$here"/fuzz_*.c; do
        name=$(basename "$src" .c)
        name=${name#fuzz_}
        bin_of "$name" >/dev/null && set -- "$@" "$name"
    done
    if [ $# -eq 0 ]; then
        echo "fuzz: no fuzz binaries in $build" >&2
        exit 2
    fi
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlfuzz-run.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# Seeds from the shared corpus, cut once for every target.
if [ "${FUZZ_SHARED:-1}" != 0 ] && [ -d "$shared" ] && command -v python3 >/dev/null; then
    python3 "$here/seeds.py" "$tmp/shared" "$shared" || echo "fuzz: shared seeds failed" >&2
fi

status=0
total_start=$(date +%s)
for name in "$@"; do
    if ! bin=$(bin_of "$name"); then
        echo "fuzz: $name: no binary fuzz_$name or fuzzsmoke_$name in $build" >&2
        status=1
        continue
    fi
    if [ -n "${FUZZ_WORK:-}" ]; then
        work=$FUZZ_WORK/$name
    else
        work=$tmp/$name
    fi
    mkdir -p "$work/corpus" "$work/artifacts" || exit 2
    if [ -d "$here/corpus/$name" ]; then
        cp -R "$here/corpus/$name/." "$work/corpus/"
        rm -f "$work/corpus/.gitkeep"
    fi
    dirs="$work/corpus"
    [ -d "$tmp/shared/$name" ] && dirs="$dirs $tmp/shared/$name"
    dict=
    [ -f "$here/dict/$name.dict" ] && dict=-dict=$here/dict/$name.dict
    log=$work/fuzz.log
    start=$(date +%s)
    # shellcheck disable=SC2086
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
        "$bin" -max_total_time="$secs" -max_len="$(max_len_of "$name")" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
        $dict ${FUZZ_ARGS:-} $dirs >"$log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    execs=${execs:-0}
    rate=$((execs / (took > 0 ? took : 1)))
    cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 |
        sed -n 's/.*\(cov: [0-9]*\).*/\1/p')
    echo "fuzz: $name: $execs execs in ${took}s ($rate/s), ${cov:-cov: ?}, corpus $(find "$work/corpus" -type f | wc -l) files"
    found=$(ls "$work/artifacts" 2>/dev/null)
    if [ -n "$found" ] || [ $rc -ne 0 ]; then
        status=1
        mkdir -p "$build/fuzz-findings/$name"
        for f in $found; do
            cp "$work/artifacts/$f" "$build/fuzz-findings/$name/"
            echo "fuzz: $name: FOUND $build/fuzz-findings/$name/$f ($(wc -c <"$work/artifacts/$f") bytes)"
        done
        cp "$log" "$build/fuzz-findings/$name/fuzz.log"
        echo "fuzz: $name: exit $rc; log in $build/fuzz-findings/$name/fuzz.log" >&2
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz_[a-z]+: check failed)' "$log" | head -n 5 >&2
        grep -E '^ +#[0-9]+ ' "$log" | head -n 8 >&2
    fi
done
echo "fuzz: done in $(($(date +%s) - total_start))s"
exit $status
