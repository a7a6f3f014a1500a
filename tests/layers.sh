#!/usr/bin/env bash
# The layer rules of src/ (README "Layout"), read off the #include lines: an include goes down
# the list base < input < model < report, output < engine < sinks < modes < cli, never up or
# sideways:
#   base    includes only base
#   input   includes base and input
#   model   includes base, input and model
#   report  includes base, model and report (not input, not output)
#   output  includes base and output
#   engine  includes base, input, model, output and engine (no report, no sink, no mode)
#   sinks   includes base, input, model, report, output, sinks, and of the engine only its
#           interface for sinks (engine/sink.h, engine/messages.h), never its internals
#   modes   includes anything but the CLI
#   cli     includes only the public header (tlparse/tlparse.h), base/config.h and cli
# Only the engine, sinks, modes and the CLI see the public header (tlparse/). And no circle of
# includes among the files (tests/include_cycles.py).
# Also: every .c file includes "base/config.h" first, and opens with its licence line and a
# comment saying what it does.
# Usage: tests/layers.sh [ignored]     (run from the repository root)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
declare -A allowed=(
    [base]="base"
    [input]="base input"
    [model]="base input model"
    [report]="base model report"
    [output]="base output"
    [engine]="base input model output engine tlparse"
    [sinks]="base input model report output engine sinks tlparse"
    [modes]="base input model report output engine sinks modes tlparse"
    [cli]="base cli tlparse"
)
# Files of an allowed layer that a layer may not include all the same.
declare -A forbidden=(
    [sinks]="engine/engine.h"
)
# What the CLI may include of base: config.h only (the feature macros every .c file starts with).
cli_base_ok="base/config.h"
bad=0
fail() {
    echo "layers: $*"
    bad=1
}
nfiles=0
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)"'
for f in src/*.[ch] src/*/*.[ch]; do
    [ -e "$f" ] || continue
    nfiles=$((nfiles + 1))
    rel=${f#src/}
    layer=${rel%%/*}
    if [ "$layer" = "$rel" ] || [ -z "${allowed[$layer]:-}" ]; then
        fail "$f: src/${layer%.*}/ is not a layer (base, input, model, report, output, engine, sinks, modes, cli)"
        continue
    fi
    first=
    while IFS= read -r line; do
        [[ $line =~ $include_re ]] || continue
        inc=${BASH_REMATCH[1]}
        [ -n "$first" ] || first=$inc
        case $inc in
        */*)
            to=${inc%%/*}
            if [[ " ${allowed[$layer]} " != *" $to "* ]]; then
                fail "$f ($layer) includes $inc ($to): $layer may include only ${allowed[$layer]}"
            elif [[ " ${forbidden[$layer]:-} " == *" $inc "* ]]; then
                fail "$f ($layer) includes $inc: $layer may not see it"
            elif [ "$layer" = cli ] && [ "$to" = base ] && [ "$inc" != "$cli_base_ok" ]; then
                fail "$f (cli) includes $inc: the CLI uses the public header, and of base only $cli_base_ok"
            fi
            ;;
        *) fail "$f includes \"$inc\" without its folder (write \"<layer>/$inc\")" ;;
        esac
    done <"$f"
    if [[ $f == *.c ]] && [ "$first" != base/config.h ]; then
        fail "$f: the first include must be \"base/config.h\" (it is \"$first\")"
    fi
    if [[ $f == *.c ]]; then
        # line 1: the SPDX licence; then a /* comment */ of what the file does, before any code
        head -1 "$f" | grep -q 'SPDX-License-Identifier' || fail "$f: line 1 is not the SPDX licence line"
        awk 'NR == 1 { next }
             /^\/\*/ { found = 1; exit }
             /^[[:space:]]*$/ { next }
             { exit }
             END { exit !found }' "$f" || { fail "$f: no comment after the licence line saying what the file does"; continue; }
        words=$(awk 'NR == 1 { next } /^\/\*/ { on = 1 } !on && NF { exit } on { print } on && /\*\// { exit }' "$f" | wc -w)
        [ "$words" -ge 8 ] || fail "$f: the opening comment is too short to say what the file does ($words words)"
    fi
done
[ "$nfiles" -gt 20 ] || fail "only $nfiles files found under src/: wrong folder?"
# No circles: a file with its header is one unit, and no two units need each other.
python3 tests/include_cycles.py src || bad=1
if [ "$bad" = 0 ]; then
    echo "layers: $nfiles files keep the layer rules"
fi
exit $bad
