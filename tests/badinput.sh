#!/usr/bin/env bash
# Hostile and broken input: every case crafts a log at run time and checks the exact
# outcome (exit code, every stderr line, the Stats line, the files of the report).
# Nothing in a log may abort the run, crash, or hang; bad lines are reported as
# `tlparse: warning: FILE:LINE: ...` and counted.
# Usage: tests/badinput.sh path/to/tlparse     (needs python3; /usr/bin/time for the RSS check)
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared, new_tmp; counts cases (begin, mark_failed, tally); has, hasnt; P, CID, md5
bin=$(realpath "$1")
new_tmp
cd "$tmp" || exit 1
export TLPARSE_YEAR=2024 # raw.jsonl timestamps

# ---- case bookkeeping: the final line counts cases, not assertions
bad() {
    mark_failed
    echo "    $*"
}

show_file=0 # a failed has names the file only

STD="chromium_events.json compile_directory.json failures_and_restarts.html index.html raw.jsonl raw.log summary.json"

# run CODE LOG [ARGS...]: tlparse LOG -o o_<case>; checks the exit code, an empty stdout,
# and that no temporary folder is left behind (not lib.sh's run).
run() {
    local want=$1 log=$2
    shift 2
    out="o_$cur"
    rm -rf "$out"
    "$bin" "$log" -o "$out" --no-browser "$@" >out.txt 2>err.txt
    local got=$?
    [ "$got" = "$want" ] || bad "exit $got, want $want; stderr: $(head -c 600 err.txt)"
    [ ! -s out.txt ] || bad "stdout not empty: $(head -c 200 out.txt)"
    local left
    left=$(find . -maxdepth 1 -name ".$out.tlparse-*" | head -1)
    [ -z "$left" ] || bad "temporary folder left: $left"
}
# err_is LINE...: stderr is exactly these lines.
# A run that wrote a report ends with the line that says where it is and what it found
# (after Stats); it is checked here, and the other lines against LINE... .
LAST='^tlparse: o_[A-Za-z0-9_]+/index\.html: [0-9]+ compile ids?, [0-9]+ graph breaks?, [0-9]+ recompiles?, [0-9]+ failures?$'
err_is() {
    local want got
    want=$(printf '%s\n' "$@")
    got=$(cat err.txt)
    if [ -e "$out/index.html" ]; then
        if tail -n 1 err.txt | grep -Eq "$LAST"; then
            got=$(sed '$d' err.txt)
        else
            bad "no last line 'tlparse: $out/index.html: ...': $(tail -n 1 err.txt)"
        fi
    fi
    [ "$got" = "$want" ] || bad "stderr is:
$(head -c 1500 err.txt)
--- want:
$want"
}
# tree_is FILE...: the report holds exactly the standard files plus these (files only).
tree_is() {
    local want got
    want=$(printf '%s\n' $STD "$@" | LC_ALL=C sort)
    got=$(cd "$out" 2>/dev/null && find . -mindepth 1 ! -type d | sed 's|^\./||' | LC_ALL=C sort)
    [ "$got" = "$want" ] || bad "files of $out:
$got
--- want:
$want"
}
no_report() { [ ! -e "$out" ] || bad "$out exists"; }
content_is() { # content_is FILE TEXT (exact bytes)
    if [ "$(cat "$1"; printf x)" = "$2x" ]; then :; else bad "$1 is '$(head -c 200 "$1")', want '$2'"; fi
}
jkeys_are() { # jkeys_are JSONFILE KEY...: compile_directory.json has exactly these keys
    local got want file=$1
    shift
    got=$(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))))' "$file" 2>&1)
    want=$(printf '%s\n' "$@")
    [ "$got" = "$want" ] || bad "keys of $file: $got; want $want"
}

# ============================================================================ cases

begin truncated_last_line_outside_payload
{
    printf '%s{"dynamo_output_graph": {}, %s}\n' "$P" "$CID"
    printf '%s{"aot_forward_graph": {}, %s}' "$P" "$CID"
} >t.log
run 0 t.log
err_is "Stats { ok: 2 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt -_0_0_0/aot_forward_graph_1.txt

begin truncated_envelope
{
    printf '%s{"dynamo_output_graph": {}, %s}\n' "$P" "$CID"
    printf '%s{"aot_forward_graph": {}, "fra' "$P"
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:2: Failed to parse metadata JSON: unexpected end of input at column 31" \
    "Stats { ok: 1, fail_json: 1 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt

begin truncated_last_line_inside_complete_payload
# The payload's last line has no newline but is whole: the md5 matches.
printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tab\n\tcd' "$P" "$CID" \
    "$(md5 $'ab\ncd')" >t.log
run 0 t.log
err_is "Stats { ok: 1 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt
content_is "$out/-_0_0_0/dynamo_output_graph_0.txt" $'ab\ncd'

begin truncated_payload_mid_line
printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tab\n\tc' "$P" "$CID" \
    "$(md5 $'ab\ncd')" >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: the log ends in the middle of this entry's payload" \
    "Stats { ok: 1, fail_payload_truncated: 1 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt
content_is "$out/-_0_0_0/dynamo_output_graph_0.txt" $'ab\nc'
run 1 t.log --strict
tree_is -_0_0_0/dynamo_output_graph_0.txt

begin truncated_payload_at_line_end
# Cut right after a payload line's newline, before the payload's last line: this cannot
# be told from a wrong md5 on the last entry, so it is reported as what is certain.
printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tab\n' "$P" "$CID" \
    "$(md5 $'ab\ncd')" >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: payload md5 mismatch (has_payload $(md5 $'ab\ncd'), payload $(md5 'ab'))" \
    "Stats { ok: 1, fail_payload_md5: 1 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt
content_is "$out/-_0_0_0/dynamo_output_graph_0.txt" 'ab'

begin orphan_payload_lines
{
    printf '\torphan 1\n\torphan 2\n'
    printf '%s{"dynamo_output_graph": {}, %s}\n' "$P" "$CID" # no has_payload: consumes nothing
    printf '\torphan 3\n\n\torphan 4\n'
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Failed to parse glog prefix" \
    "tlparse: warning: t.log:2: Failed to parse glog prefix" \
    "tlparse: warning: t.log:4: Failed to parse glog prefix" \
    "tlparse: warning: t.log:6: Failed to parse glog prefix" \
    "Stats { ok: 1, fail_glog: 4 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt
content_is "$out/-_0_0_0/dynamo_output_graph_0.txt" ''

begin warnings_capped_per_kind
# a trace (its first line is an entry) followed by 25 orphaned payload lines
{
    printf '%s{"dynamo_start": {"stack": []}, %s}\n' "$P" "$CID"
    for i in $(seq 25); do printf '\torphan %d\n' "$i"; done
} >t.log
run 0 t.log
want=()
for i in $(seq 2 21); do want+=("tlparse: warning: t.log:$i: Failed to parse glog prefix"); done
err_is "${want[@]}" \
    "tlparse: warning: t.log: further messages of this kind are not shown; the Stats line counts them" \
    "Stats { ok: 1, fail_glog: 25 }"
tree_is
# the same lines alone are no log at all: an error, and no report
for i in $(seq 25); do printf '\torphan %d\n' "$i"; done >t.log
run 1 t.log
err_is "tlparse: error: t.log is not a TORCH_TRACE log or TORCH_LOGS text: none of its 25 lines has a glog prefix or is a TORCH_LOGS message"
[ ! -e "$out" ] || bad "a report was left for a file that is no log"

begin md5_mismatch
good=$(md5 'graph')
{
    printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tgraph\n' "$P" "$CID" \
        "0123456789abcdef0123456789abcdef"
    # uppercase hex is a mismatch too (spec §1.6)
    printf '%s{"aot_forward_graph": {}, %s, "has_payload": "%s"}\n\tgraph\n' "$P" "$CID" \
        "${good^^}"
    printf '%s{"aot_backward_graph": {}, %s, "has_payload": "%s"}\n\tgraph\n' "$P" "$CID" "$good"
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: payload md5 mismatch (has_payload 0123456789abcdef0123456789abcdef, payload $good)" \
    "tlparse: warning: t.log:3: payload md5 mismatch (has_payload ${good^^}, payload $good)" \
    "Stats { ok: 3, fail_payload_md5: 2 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt -_0_0_0/aot_forward_graph_1.txt \
    -_0_0_0/aot_backward_graph_2.txt
content_is "$out/-_0_0_0/dynamo_output_graph_0.txt" 'graph' # the payload is used as is
run 1 t.log --strict
tree_is -_0_0_0/dynamo_output_graph_0.txt -_0_0_0/aot_forward_graph_1.txt \
    -_0_0_0/aot_backward_graph_2.txt

begin has_payload_not_hex
{
    printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tx\n' "$P" "$CID" \
        "zz3b831b9534ba06b8f0858d1513c32b"
    printf '%s{"aot_forward_graph": {}, %s, "has_payload": ""}\n\tx\n' "$P" "$CID"
    printf '%s{"aot_backward_graph": {}, %s, "has_payload": 12}\n\tx\n' "$P" "$CID"
    printf '%s{"aot_joint_graph": {}, %s, "has_payload": null}\n' "$P" "$CID"
} >t.log
run 0 t.log
x=$(md5 x)
err_is "tlparse: warning: t.log:1: payload md5 mismatch (has_payload zz3b831b9534ba06b8f0858d1513c32b, payload $x)" \
    "tlparse: warning: t.log:3: payload md5 mismatch (has_payload , payload $x)" \
    "tlparse: warning: t.log:5: Failed to parse metadata JSON: invalid type for \"has_payload\": expected a string" \
    "Stats { ok: 3, fail_json: 1, fail_payload_md5: 2 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt -_0_0_0/aot_forward_graph_1.txt \
    -_0_0_0/aot_joint_graph_2.txt

begin envelope_not_an_object
{
    printf '%s[1, 2]\n\tpayload of the array\n' "$P"
    printf '%s42\n' "$P"
    printf '%s"a string"\n' "$P"
    printf '%snull\n' "$P"
    printf '%s{"frame_id": 0}\n' "$P"
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Failed to parse metadata JSON: the envelope is not a JSON object" \
    "tlparse: warning: t.log:3: Failed to parse metadata JSON: the envelope is not a JSON object" \
    "tlparse: warning: t.log:4: Failed to parse metadata JSON: the envelope is not a JSON object" \
    "tlparse: warning: t.log:5: Failed to parse metadata JSON: the envelope is not a JSON object" \
    "Stats { ok: 1, fail_json: 4 }"
tree_is
content_is "$out/raw.jsonl" '{"string_table":[null]}
{"frame_id":0,"lineno":1,"pathname":" torch/x.py","thread":1,"timestamp":"2024-11-21T10:00:00.000000Z"}
'

begin deeply_nested_json
python3 -c "
import sys
p = sys.argv[1]
sys.stdout.write(p + '[' * 100000 + '\n')
sys.stdout.write(p + '{\"a\": ' * 100000 + '1' + '}' * 100000 + '\n')
sys.stdout.write(p + '{\"x\": ' + '[' * 100 + ']' * 100 + ', \"frame_id\": 0}\n')
" "$P" >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Failed to parse metadata JSON: nesting too deep at column 128" \
    "tlparse: warning: t.log:2: Failed to parse metadata JSON: nesting too deep at column 763" \
    "Stats { ok: 1, fail_json: 2, unknown: 1 }" \
    'Unknown fields: {"x"} (consider updating tlparse to render these)'
tree_is

begin huge_numbers
{
    printf '%s{"x": 1e999999, %s}\n' "$P" "$CID"
    printf '%s{"x": -1e400, %s}\n' "$P" "$CID"
    printf '%s{"dynamo_output_graph": {}, "frame_id": 123456789012345678901234567890}\n' "$P"
    printf '%s{"x": 123456789012345678901234567890, "y": 1e-999999, "frame_id": 1}\n' "$P"
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Failed to parse metadata JSON: number out of range at column 7" \
    "tlparse: warning: t.log:2: Failed to parse metadata JSON: number out of range at column 7" \
    "Stats { ok: 2, fail_json: 2, unknown: 2 }" \
    'Unknown fields: {"x", "y"} (consider updating tlparse to render these)'
tree_is unknown_3/dynamo_output_graph_0.txt
jkeys_are "$out/compile_directory.json" "[1/-]" unknown
has "$out/raw.jsonl" '"x":1.2345678901234568e29,"y":0.0'
run 1 t.log --strict-compile-id
has err.txt "tlparse: error: Some log entries did not have compile id"

begin duplicate_keys
{
    printf '%s{"dynamo_output_graph": {}, "dynamo_output_graph": {}, %s}\n' "$P" "$CID"
    printf '%s{"frame_id": 1, "frame_id": 2, "dynamo_output_graph": {}}\n' "$P"
    printf '%s{"compilation_metrics": {"co_name": "a", "co_name": "b"}, %s}\n' "$P" "$CID"
    printf '%s{"frame_id": 3, "dynamo_output_graph": {}}\n' "$P"
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Failed to parse metadata JSON: duplicate field \"dynamo_output_graph\"" \
    "tlparse: warning: t.log:3: Failed to parse metadata JSON: duplicate field \"co_name\" in \"compilation_metrics\"" \
    "Stats { ok: 2, fail_json: 2 }"
tree_is unknown_2/dynamo_output_graph_0.txt -_3_-_-/dynamo_output_graph_1.txt
jkeys_are "$out/compile_directory.json" "[3/-]" unknown

begin invalid_escapes
{
    printf '%s{"x": "a\\qb"}\n' "$P"
    printf '%s{"x": "\\u00"}\n' "$P"
    printf '%s{"x": "\\x41"}\n' "$P"
    printf '%s{"x": "ok \\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0041", "frame_id": 0}\n' "$P"
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Failed to parse metadata JSON: invalid escape at column 10" \
    "tlparse: warning: t.log:2: Failed to parse metadata JSON: invalid escape at column 12" \
    "tlparse: warning: t.log:3: Failed to parse metadata JSON: invalid escape at column 9" \
    "Stats { ok: 1, fail_json: 3, unknown: 1 }" \
    'Unknown fields: {"x"} (consider updating tlparse to render these)'
tree_is
has "$out/raw.jsonl" '"x":"ok \" \\ / \b\f\n\r\t A"'

begin lone_surrogates
{
    printf '%s{"x": "a\\ud800b"}\n' "$P"
    printf '%s{"x": "a\\udc00b"}\n' "$P"
    printf '%s{"x": "a\\ud800\\u0041"}\n' "$P"
    printf '%s{"x": "a\\ud83d\\ude00b", "frame_id": 0}\n' "$P"
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Failed to parse metadata JSON: lone surrogate at column 9" \
    "tlparse: warning: t.log:2: Failed to parse metadata JSON: lone surrogate at column 9" \
    "tlparse: warning: t.log:3: Failed to parse metadata JSON: lone surrogate at column 9" \
    "Stats { ok: 1, fail_json: 3, unknown: 1 }" \
    'Unknown fields: {"x"} (consider updating tlparse to render these)'
tree_is
has "$out/raw.jsonl" '"x":"a😀b"'

begin invalid_utf8
# Bad bytes in an envelope line are replaced by U+FFFD and the entry is kept (the
# reference skips the line and then fails the whole run); a payload line with bad bytes
# is kept as it is (its md5 is over the bytes written). A line is counted once: line 3
# is a JSON failure, not also a UTF-8 one.
{
    printf '%s{"x": "a\xffb", %s}\n' "$P" "$CID"                         # 1 string value
    printf '%s{"x\xc3": 1, %s}\n' "$P" "$CID"                            # 2 key
    printf '%s{"dynamo_output_graph": {}, %s\xed\xa0\x80}\n' "$P" "$CID" # 3 envelope, outside strings
    printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n' "$P" "$CID" "$(md5 $'good\nbad \xfe\ngood2')"
    printf '\tgood\n\tbad \xfe\n\tgood2\n'                               # 5-7 payload
    printf '%s{"artifact": {"name": "n\xc0\xafme", "encoding": "string"}, %s}\n' "$P" "$CID" # 8 overlong '/'
    printf 'V1121 10:00:00.000000 1 tor\xffch.py:1] {"frame_id": 0}\n'     # 9 the glog path
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: invalid UTF-8 replaced by U+FFFD" \
    "tlparse: warning: t.log:2: invalid UTF-8 replaced by U+FFFD" \
    "tlparse: warning: t.log:3: Failed to parse metadata JSON: expected ',' or '}' at column 79" \
    "tlparse: warning: t.log:6: invalid UTF-8 in a payload line; kept as is" \
    "tlparse: warning: t.log:8: invalid UTF-8 replaced by U+FFFD" \
    "tlparse: warning: t.log:9: invalid UTF-8 replaced by U+FFFD" \
    "Stats { ok: 5, fail_json: 1, unknown: 2, fail_utf8: 5 }" \
    $'Unknown fields: {"x", "x\xef\xbf\xbd"} (consider updating tlparse to render these)'
tree_is -_0_0_0/dynamo_output_graph_0.txt $'-_0_0_0/n\xef\xbf\xbdme_1.txt'
content_is "$out/-_0_0_0/dynamo_output_graph_0.txt" $'good\nbad \xfe\ngood2'
has "$out/raw.jsonl" $'"x":"a\xef\xbf\xbdb"'
has "$out/raw.jsonl" $'"x\xef\xbf\xbd":1'
has "$out/raw.jsonl" $'"pathname":" tor\xef\xbf\xbdch.py"'
run 1 t.log --strict
tree_is -_0_0_0/dynamo_output_graph_0.txt $'-_0_0_0/n\xef\xbf\xbdme_1.txt'

begin nul_bytes
{
    printf '%s{"x": "a\x00b", %s}\n' "$P" "$CID"                 # 1 raw NUL in a string
    printf '%s{"x\x00": 1, %s}\n' "$P" "$CID"                    # 2 raw NUL in a key
    printf '%s{"frame_id": 0}\x00\n' "$P"                        # 3 NUL after the envelope
    printf '%s{"x": "a\\u0000b", %s}\n' "$P" "$CID"              # 4 escaped NUL: fine
    printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tgo\x00od\n' "$P" "$CID" \
        "$(printf 'go\0od' | md5sum | cut -c1-32)"               # 5-6 NUL in a payload: kept
    printf 'V1121 10:00:00.000000 1 tor\x00ch.py:1] {"frame_id": 0}\n' # 7 NUL in the path
    printf '\x00\x00\x00\n'                                      # 8
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Failed to parse metadata JSON: control character in string at column 9" \
    "tlparse: warning: t.log:2: Failed to parse metadata JSON: control character in string at column 4" \
    "tlparse: warning: t.log:3: Failed to parse metadata JSON: trailing characters at column 16" \
    "tlparse: warning: t.log:8: Failed to parse glog prefix" \
    "Stats { ok: 3, fail_glog: 1, fail_json: 3, unknown: 1 }" \
    'Unknown fields: {"x"} (consider updating tlparse to render these)'
tree_is -_0_0_0/dynamo_output_graph_0.txt
if [ "$(od -An -c "$out/-_0_0_0/dynamo_output_graph_0.txt" | tr -s ' ')" = " g o \0 o d" ]; then :; else
    bad "payload with a NUL not kept: $(od -An -c "$out/-_0_0_0/dynamo_output_graph_0.txt")"
fi
has "$out/raw.jsonl" '"x":"a\u0000b"'
has "$out/raw.jsonl" '"pathname":" tor\u0000ch.py"'

begin line_over_64mib_512mb
# One 512 MiB line between two good ones, written streaming, deleted afterwards.
{
    printf '%s{"dynamo_output_graph": {}, %s}\n' "$P" "$CID"
    printf '%s{"x": "' "$P"
    head -c 536870912 /dev/zero | tr '\0' a
    printf '"}\n'
    printf '%s{"frame_id": 1}\n' "$P"
} >big.log
n=$((${#P} + 7 + 536870912 + 2))
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f %M -o rss.txt "$bin" big.log -o o_big --no-browser >out.txt 2>err.txt
    rc=$?
else
    echo "    (no /usr/bin/time: peak RSS not measured)"
    "$bin" big.log -o o_big --no-browser >out.txt 2>err.txt
    rc=$?
    echo 0 >rss.txt
fi
out=o_big
[ "$rc" = 0 ] || bad "exit $rc; stderr: $(head -c 600 err.txt)"
err_is "tlparse: warning: big.log:2: line of $n bytes is over the 64 MiB limit; skipped" \
    "Stats { ok: 2, fail_line_too_long: 1 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt
rss=$(tail -1 rss.txt)
[ "$rss" -lt 204800 ] || bad "peak RSS ${rss} KiB, want < 200 MiB"
[ "$(stat -c %s o_big/raw.log)" = "$(stat -c %s big.log)" ] || bad "raw.log is not a full copy"
rm -rf big.log o_big

begin long_lines_in_payload
# A 70 MB payload line is skipped (the payload goes on without it, so its md5 no longer
# matches); one at the end of the file, unterminated, leaves a truncated payload.
full=$({ printf 'first\n'; head -c 70000000 /dev/zero | tr '\0' b; printf '\nlast'; } | md5sum | cut -c1-32)
{
    printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tfirst\n\t' "$P" "$CID" "$full"
    head -c 70000000 /dev/zero | tr '\0' b
    printf '\n\tlast\n%s{"aot_forward_graph": {}, %s, "has_payload": "%s"}\n\tfirst\n\t' "$P" "$CID" \
        "$full"
    head -c 70000000 /dev/zero | tr '\0' b
} >long.log
run 0 long.log
err_is "tlparse: warning: long.log:3: line of 70000001 bytes is over the 64 MiB limit; skipped" \
    "tlparse: warning: long.log:1: payload md5 mismatch (has_payload $full, payload $(md5 $'first\nlast'))" \
    "tlparse: warning: long.log:7: line of 70000001 bytes is over the 64 MiB limit; skipped" \
    "tlparse: warning: long.log:5: the log ends in the middle of this entry's payload" \
    "Stats { ok: 2, fail_payload_md5: 1, fail_payload_truncated: 1, fail_line_too_long: 2 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt -_0_0_0/aot_forward_graph_1.txt
content_is "$out/-_0_0_0/dynamo_output_graph_0.txt" $'first\nlast'
content_is "$out/-_0_0_0/aot_forward_graph_1.txt" 'first'
rm -rf long.log "$out"

begin crlf_line_ends
{
    printf '%s{"str": ["a/b.py", 0]}\n' "$P"
    printf '%s{"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": 0}]}, %s}\n' "$P" "$CID"
    printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tab\n\tcd\n' "$P" "$CID" "$(md5 $'ab\ncd')"
    printf '%s{"artifact": {"name": "a", "encoding": "string"}, %s, "has_payload": "%s"}\n\tab\n\n\tcd\n' \
        "$P" "$CID" "$(md5 $'ab\ncd')"
    printf '%s{"compilation_metrics": {"co_name": "f", "graph_op_count": 1}, %s}\n' "$P" "$CID"
} >lf.log
sed 's/$/\r/' lf.log >crlf.log
run 0 lf.log
err_is "Stats { ok: 4 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt -_0_0_0/a_1.txt -_0_0_0/compilation_metrics_2.html
rm -rf report_lf && cp -r "$out" report_lf
run 0 crlf.log
err_is "Stats { ok: 4 }"
tree_is -_0_0_0/dynamo_output_graph_0.txt -_0_0_0/a_1.txt -_0_0_0/compilation_metrics_2.html
# the same report, but raw.log (an exact copy of each input), the input's name in summary.json
# and what says how each was made (the index's footer, summary.json's generated_by)
rm -rf report_crlf && cp -r "$out" report_crlf && python3 "$here/strip_runinfo.py" report_lf report_crlf
d=$(diff -r -x raw.log -x summary.json report_lf report_crlf 2>&1) || bad "CRLF report differs: $(echo "$d" | head -5)"
d=$(diff <(grep -v '"path": ' report_lf/summary.json) <(grep -v '"path": ' report_crlf/summary.json)) ||
    bad "CRLF summary.json differs: $(echo "$d" | head -5)"
cmp -s crlf.log "$out/raw.log" || bad "raw.log is not the CRLF input"
# A payload that itself had CR LF line ends when its md5 was taken: the reader drops the
# CR like the reference does, so the md5 no longer matches.
printf '%s{"dynamo_output_graph": {}, %s, "has_payload": "%s"}\n\tab\r\n\tcd\n' "$P" "$CID" \
    "$(md5 $'ab\r\ncd')" >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: payload md5 mismatch (has_payload $(md5 $'ab\r\ncd'), payload $(md5 $'ab\ncd'))" \
    "Stats { ok: 1, fail_payload_md5: 1 }"
content_is "$out/-_0_0_0/dynamo_output_graph_0.txt" $'ab\ncd'

begin compile_id_out_of_range
# A compile-id field that is not a u32 makes the compile id absent: folder unknown_<line>,
# key "unknown" ("(unknown)" in index.html). Keys after the bad one count as unknown
# fields (the reference's quirk, spec §1.4).
g=$(md5 g)
{
    for v in -1 4294967296 1.5 '"0"' true '[0]' 0e0 -0 4294967295; do
        printf '%s{"dynamo_output_graph": {}, "frame_id": %s, "frame_compile_id": 0, "attempt": 0, "has_payload": "%s"}\n\tg\n' \
            "$P" "$v" "$g"
    done
} >t.log
run 0 t.log
err_is "Stats { ok: 9, unknown: 16 }" \
    'Unknown fields: {"frame_compile_id", "attempt"} (consider updating tlparse to render these)'
tree_is unknown_1/dynamo_output_graph_0.txt unknown_3/dynamo_output_graph_1.txt \
    unknown_5/dynamo_output_graph_2.txt unknown_7/dynamo_output_graph_3.txt \
    unknown_9/dynamo_output_graph_4.txt unknown_11/dynamo_output_graph_5.txt \
    unknown_13/dynamo_output_graph_6.txt unknown_15/dynamo_output_graph_7.txt \
    -_4294967295_0_0/dynamo_output_graph_8.txt
jkeys_are "$out/compile_directory.json" "[4294967295/0]" unknown
has "$out/index.html" '<a id="(unknown)">(unknown)</a>'
run 1 t.log --strict-compile-id
err_is "Stats { ok: 9, unknown: 16 }" \
    'Unknown fields: {"frame_compile_id", "attempt"} (consider updating tlparse to render these)' \
    "tlparse: error: Some log entries did not have compile id"
tree_is unknown_1/dynamo_output_graph_0.txt unknown_3/dynamo_output_graph_1.txt \
    unknown_5/dynamo_output_graph_2.txt unknown_7/dynamo_output_graph_3.txt \
    unknown_9/dynamo_output_graph_4.txt unknown_11/dynamo_output_graph_5.txt \
    unknown_13/dynamo_output_graph_6.txt unknown_15/dynamo_output_graph_7.txt \
    -_4294967295_0_0/dynamo_output_graph_8.txt

begin str_never_defined
{
    printf '%s{"str": ["a/known.py", 0]}\n' "$P"
    printf '%s{"dynamo_start": {"stack": [{"line": 1, "name": "f_known", "filename": 0}, {"line": 2, "name": "f_undef", "filename": 7}]}, %s}\n' "$P" "$CID"
} >t.log
run 0 t.log
err_is "Stats { ok: 1 }"
tree_is
has "$out/index.html" "a/known.py:1 in f_known"
has "$out/index.html" "(unknown):2 in f_undef"
content_is "$out/raw.jsonl" '{"string_table":["a/known.py"]}
{"attempt":0,"dynamo_start":{"stack":[{"filename":0,"line":1,"name":"f_known"},{"filename":7,"line":2,"name":"f_undef"}]},"frame_compile_id":0,"frame_id":0,"lineno":1,"pathname":" torch/x.py","thread":1,"timestamp":"2024-11-21T10:00:00.000000Z"}
'

begin str_id_above_limit
{
    printf '%s{"str": ["x/too_big.py", 1048577]}\n' "$P"
    printf '%s{"str": ["x/edge.py", 1048576]}\n' "$P"
    printf '%s{"str": ["x/neg.py", -1]}\n' "$P"
    printf '%s{"dynamo_start": {"stack": [{"line": 3, "name": "f_big", "filename": 1048577}, {"line": 4, "name": "f_edge", "filename": 1048576}]}, %s}\n' "$P" "$CID"
} >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: string table id 1048577 is too large; entry ignored" \
    "tlparse: warning: t.log:3: Failed to parse metadata JSON: invalid type for \"str\": expected a [string, u32] pair" \
    "Stats { ok: 1, fail_json: 1, fail_str_table: 1 }"
tree_is
has "$out/index.html" "(unknown):3 in f_big"
has "$out/index.html" "x/edge.py:4 in f_edge"
[ "$(head -1 "$out/raw.jsonl" | python3 -c 'import json,sys; t=json.load(sys.stdin)["string_table"]; print(len(t), t[-1])')" = "1048577 x/edge.py" ] ||
    bad "raw.jsonl string table: $(head -c 100 "$out/raw.jsonl")"
run 1 t.log --strict

begin stack_of_100000_frames
python3 -c "
import sys
p = sys.argv[1]
fr = ','.join('{\"line\": %d, \"name\": \"fn_%d\", \"filename\": 0}' % (i, i) for i in range(100000))
sys.stdout.write(p + '{\"str\": [\"deep.py\", 0]}\n')
sys.stdout.write(p + '{\"dynamo_start\": {\"stack\": [' + fr + ']}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n')
" "$P" >t.log
run 0 t.log
err_is "Stats { ok: 1 }"
tree_is
has "$out/index.html" "deep.py:0 in fn_0<"
has "$out/index.html" "deep.py:99999 in fn_99999<"

begin empty_file
: >t.log
run 0 t.log
err_is "tlparse: warning: t.log is empty: the report has nothing in it (was the trace written by a process that had not compiled anything yet?)
Stats { }"
tree_is
content_is "$out/compile_directory.json" "{}"
content_is "$out/chromium_events.json" "[]"
content_is "$out/raw.jsonl" '{"string_table":[null]}
'
content_is "$out/raw.log" ""
printf '\n\n\r\n\n' >t.log # only empty lines: skipped silently
run 0 t.log
err_is "Stats { }"

begin folder_without_logs
mkdir nologs
run 1 nologs
err_is "tlparse: error: No files found in directory nologs"
no_report
mkdir nologs/sub # a sub-folder is not a log
run 1 nologs --latest
err_is "tlparse: error: No files found in directory nologs"
no_report

begin folder_with_only_hidden_files
mkdir hidden
printf '%s{"frame_id": 0}\n' "$P" >hidden/.trace.log
: >hidden/.DS_Store
run 1 hidden
err_is "tlparse: error: No files found in directory hidden"
no_report

begin png_file
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x02\x00\x00\x00\x90\x91h6\x00\x00\x00\x0cIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\xfe\x02\xfe\x00\x00\x00\x00IEND\xaeB`\x82' >img.png
# not a log: an error that says so, and no report (with or without --strict)
run 1 img.png
err_is "tlparse: error: img.png is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"
[ ! -e "$out" ] || bad "a report was left for a PNG"
run 1 img.png --strict
err_is "tlparse: error: img.png is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"
[ ! -e "$out" ] || bad "a report was left for a PNG"

begin torch_logs_text_log
# TORCH_LOGS output (not TORCH_TRACE): glog-prefixed guard lines and a plain recompile
# message. Real excerpts from ../shared when present, else look-alikes. It is read as a text
# log: its diagnosis and the log itself, no trace report.
g1="$shared/corpus/torch_logs/issue164119_guards_python_shape_guard_fn_truncated.txt"
g2="$shared/corpus/torch_logs/ptdocs_troubleshooting_recompiles_size.txt"
if [ -f "$g1" ] && [ -f "$g2" ]; then
    { head -5 "$g1"; sed -n 2,4p "$g2"; } >torch_logs.txt
else
    echo "badinput: ../shared absent: its 2 TORCH_LOGS excerpts are not read (look-alikes of ours are)"
    {
        for i in 1 2 3 4 5; do
            printf 'V0930 08:14:56.394000 221700 site-packages/torch/_dynamo/guards.py:1342] [0/0] [__guards] guard line %d\n' "$i"
        done
        printf 'Recompiling function fn in /tmp/playground.py:3\n'
        printf '    triggered by the following guard failure(s):\n'
        printf "    - 0/0: tensor 'L['x']' size mismatch at index 0. expected 3, actual 4\n"
    } >torch_logs.txt
fi
run 0 torch_logs.txt
err_is "TORCH_LOGS text: 8 lines, 1 messages, 0 lines not understood"
got=$(cd "$out" && find . -mindepth 1 ! -type d | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ')
[ "$got" = "index.html log.html raw.log summary.json " ] || bad "files of $out: $got"
has "$out/summary.json" '"kind": "torch_logs"'
has "$out/summary.json" '"guard": "tensor '"'"'L['"'"'x'"'"']'"'"' size mismatch at index 0"'

begin text_that_is_no_log
# Text that is neither a trace nor TORCH_LOGS output: an error that says so, no report.
printf 'hello\nworld {"a": 1}\n' >notes.txt
run 1 notes.txt
err_is "tlparse: error: notes.txt is not a TORCH_TRACE log or TORCH_LOGS text: none of its 2 lines has a glog prefix or is a TORCH_LOGS message"
[ ! -e "$out" ] || bad "a report was left for notes.txt"

begin raw_jsonl_key_conflict
printf '%s{"timestamp": "mine", %s}\n%s{"lineno": 3, "dynamo_output_graph": {}, %s}\n' \
    "$P" "$CID" "$P" "$CID" >t.log
run 0 t.log
err_is "tlparse: warning: t.log:1: Key conflict: 'timestamp' already exists in JSON payload, skipping raw.jsonl JSONL conversion" \
    "tlparse: warning: t.log:2: Key conflict: 'lineno' already exists in JSON payload, skipping raw.jsonl JSONL conversion" \
    "Stats { ok: 2, fail_key_conflict: 2, unknown: 2 }" \
    'Unknown fields: {"timestamp", "lineno"} (consider updating tlparse to render these)'
tree_is -_0_0_0/dynamo_output_graph_0.txt
content_is "$out/raw.jsonl" '{"string_table":[null]}
'

tally
summary_line badinput
