# shellcheck shell=bash disable=SC2034
# The helpers the shell suites of tests/ share. A suite sources it first thing, after `set`:
#     . "$(dirname "$0")/lib.sh"
# A suite whose helper of the same name means something else defines its own after that line
# and says so there (badinput's run, install's same and exists, multirank's entry).
#   here, shared     the tests folder; the reference corpus ../shared beside the checkout, or
#                    $TL_SHARED
#   need_python3     a suite that runs python3 fails without it, naming the package (no skip)
#   new_tmp          $tmp, a new folder removed when the suite exits
#   ok, bad          count the checks that passed and failed in pass and fail; bad says FAIL:
#                    and why. fail is a count: a suite ends with [ "$fail" = 0 ] or
#                    summary_line, never `exit $fail` (256 failures would exit 0)
#   run, has, hasnt, same, exists, absent: checks that call ok or bad (show and show_file:
#                    how much of stderr and of a file a failed one shows)
#   summary_line     the last line of a suite that counts, "SUITE: P passed, F failed"
#   begin, mark_failed, tally: a suite that counts cases instead (badinput, names, outsafety)
#   P, CID, md5, entry: the pieces of a trace written by hand

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
shared=${TL_SHARED:-$here/../../shared}

need_python3() { # need_python3 SUITE
    command -v python3 >/dev/null || { echo "$1: python3 is needed (Debian package python3)"; exit 1; }
}

new_tmp() { # (a suite with more to clean up on exit sets its own trap)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
}

# ---- counting checks
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# summary_line SUITE [NOTE]: "SUITE: P passed, F failed[ NOTE]"; true when none failed (the last
# command of a suite: its exit code)
summary_line() {
    echo "$1: $pass passed, $fail failed${2:+ $2}"
    [ "$fail" -eq 0 ]
}

show=400      # how many bytes of tlparse's stderr a failed run shows
show_file=400 # how many bytes of the file a failed has shows (0: none, the file is only named)

# run CODE ARGS...: run tlparse ($bin), stdout in out.txt, stderr in err.txt; check the exit code
# shellcheck disable=SC2154 # bin: the suite sets it
run() {
    local want=$1
    shift
    "$bin" "$@" >out.txt 2>err.txt
    local got=$?
    if [ "$got" = "$want" ]; then ok; else bad "tlparse $* exited $got, want $want; stderr: $(head -c "$show" err.txt)"; fi
}
has() { # has FILE TEXT: the file contains the text (fixed string)
    if grep -qF -- "$2" "$1"; then
        ok
    elif [ "$show_file" -gt 0 ]; then
        bad "$1 lacks '$2': $(head -c "$show_file" "$1")"
    else
        bad "$1 lacks '$2'"
    fi
}
hasnt() { # hasnt FILE TEXT: it does not
    if grep -qF -- "$2" "$1"; then bad "$1 has '$2'"; else ok; fi
}
same() { # same FILE TEXT: the file's content is exactly the text (trailing newlines aside)
    if [ "$(cat "$1")" = "$2" ]; then ok; else bad "$1 is '$(cat "$1")', want '$2'"; fi
}
exists() { if [ -e "$1" ]; then ok; else bad "$1 does not exist"; fi; }
absent() { if [ -e "$1" ]; then bad "$1 exists"; else ok; fi; }

# ---- counting cases, not checks: `begin ID` opens a case; the suite's own bad() calls
# mark_failed, then says why, indented (each suite cuts that text its own way); at the end,
# tally sets pass and fail to the numbers of cases that passed and failed
case_ids=() cur=""
declare -A failed=()
begin() {
    cur=$1
    case_ids+=("$1")
}
mark_failed() { # the current case failed: its FAIL line, once
    [ -n "${failed[$cur]:-}" ] || echo "FAIL: $cur"
    failed[$cur]=1
}
tally() {
    local id
    pass=0 fail=0
    for id in "${case_ids[@]}"; do
        if [ -n "${failed[$id]:-}" ]; then fail=$((fail + 1)); else pass=$((pass + 1)); fi
    done
}

# ---- a trace written by hand
P='V1121 10:00:00.000000 1 torch/x.py:1] '               # the glog prefix of an entry
CID='"frame_id": 0, "frame_compile_id": 0, "attempt": 0' # compile id [0/0]
md5() { printf '%s' "$1" | md5sum | cut -c1-32; }
# entry ENVELOPE PAYLOAD: a glog line and its payload lines (@MD5@ in the envelope: its md5)
entry() {
    local env=$1 payload=$2
    printf '%s%s\n' "$P" "${env/@MD5@/$(md5 "$payload")}"
    [ -z "$payload" ] || printf '%s\n' "$payload" | sed 's/^/\t/'
}
