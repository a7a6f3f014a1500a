#!/usr/bin/env bash
# scripts/tlparse-slurm against hostile input, without Slurm (the node and finish steps, as on
# machines without a scheduler): OUT is on a shared file system that others may write, so each
# case plants one hostile thing in its state folder (a config whose world is
# BASH_VERSINFO[$(touch CANARY)]0, 1+1 or 20 digits; a file named rank_$(touch CANARY).status;
# lines of node files, rank statuses, srun's messages with commands or escape sequences; links
# to files of ours; a FIFO), or passes it as an argument or an environment variable (a trace
# path with a newline, an OUT with an escape sequence, a node name with ../). It checks that
# nothing ran (CANARY is never made), the exit status, the exact error (one line naming the
# file and the value, made printable: \xHH), that no control character reaches the terminal,
# and that no file outside OUT was written through a planted link.
# TL_SLURM_SCRIPT=PATH runs another tlparse-slurm (main's, to see what it failed).
# Usage: tests/slurmstate.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, ok, bad, has, hasnt, new_tmp, summary_line
bin=$(realpath "$1")
ts=${TL_SLURM_SCRIPT:-$here/../scripts/tlparse-slurm}
new_tmp
cd "$tmp" || exit 1
export TLPARSE=$bin SLURMD_NODENAME=n1
unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_JOB_NUM_NODES SLURM_NNODES \
    SLURM_CPUS_PER_TASK SLURM_JOB_NODELIST
st=.tlparse-slurm
E=$'\e' # ESC
run_cmd='$(touch CANARY)' # a command, as it would run if a value were evaluated (in $tmp)

# ---- helpers -----------------------------------------------------------------------------
ctl_bytes() { LC_ALL=C tr -dc '\001-\010\013-\037\177' <"$1" | wc -c; } # but tab, newline
# tsr WHAT WANT ARGS...: tlparse-slurm ARGS (stdout in out.txt, stderr in err.txt; the
# environment's variables tsr_env, NAME=VALUE, added): it exits WANT, ran nothing, and printed
# no control character
tsr_env=()
tsr() {
    local what=$1 want=$2 got f n
    shift 2
    timeout 60 env "${tsr_env[@]}" "$ts" "$@" >out.txt 2>err.txt
    got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, want $want: $(head -c 600 err.txt | cat -v)"; fi
    if [ -e CANARY ]; then
        bad "$what: a value was run as a command (CANARY made)"
        rm -f CANARY
    else
        ok
    fi
    for f in out.txt err.txt; do
        n=$(ctl_bytes "$f")
        if [ "$n" = 0 ]; then ok; else bad "$what: $n control byte(s) in $f: $(head -c 400 "$f" | cat -v)"; fi
    done
}
says() { # says WHAT TEXT: stderr is exactly TEXT (one line, or two for a usage error)
    if [ "$(cat err.txt)" = "$2" ]; then ok; else bad "$1: stderr is '$(head -c 600 err.txt | cat -v)', want '$2'"; fi
}
usage_says() { says "$1" "tlparse-slurm: error: $2"$'\n'"Try 'tlparse-slurm --help'."; }
fresh() { rm -rf "$tmp/$1" && cp -a "$tmp/base" "$tmp/$1"; } # fresh NAME: a copy of base
intact() { # intact WHAT: the files outside OUT that links pointed at are as they were (and
    # are made so again, for the next case)
    if [ "$(cat victim)" = precious ] && [ -z "$(ls -A victimdir)" ]; then ok; else
        bad "$1: written through a link: victim '$(head -c 200 victim)', victimdir: $(ls -A victimdir)"
        echo precious >victim
        rm -rf victimdir && mkdir victimdir
    fi
}
regular() { # regular WHAT FILE: FILE is a regular file now, not the link planted there
    if [ -f "$2" ] && [ ! -L "$2" ]; then ok; else bad "$1: $2 is not a regular file: $(ls -l "$2" 2>&1)"; fi
}

# ---- a report to spoil: rank 0 parsed on node n1 ------------------------------------------
mkdir trace victimdir
cp "$here/fixtures/shapes.log" trace/dedicated_log_torch_trace_rank_0.log
echo precious >victim
printf 'world 3\ntrace /secret\nTOPSECRET\n' >secret
tsr "node" 0 node "$tmp/trace" -o "$tmp/base"
tsr "finish" 0 finish -o "$tmp/base"
has err.txt "tlparse-slurm: report: $tmp/base/index.html"
left=$(cd base/$st && ls -A | grep '^\.new\.')
if [ -z "$left" ]; then ok; else bad "temporary files left in the state folder: $left"; fi
rm -f base/$st/*.out # (tlparse's messages, which a later finish does not read)

# ---- config: world and trace -------------------------------------------------------------
worlds=("BASH_VERSINFO[$run_cmd]0" '1+1' "a[$run_cmd]" '99999999999999999999' '-1' '0'
    '1000001' '0x10' '`touch CANARY`' "5${E}]0;owned"$'\a')
shown=("BASH_VERSINFO[$run_cmd]0" '1+1' "a[$run_cmd]" '99999999999999999999' '-1' '0'
    '1000001' '0x10' '`touch CANARY`' '5\x1b]0;owned\x07')
for i in "${!worlds[@]}"; do
    fresh c
    printf 'trace %s\nworld %s\n' "$tmp/trace" "${worlds[$i]}" >c/$st/config
    tsr "config world ${shown[$i]}" 1 finish -o "$tmp/c"
    says "config world ${shown[$i]}" \
        "tlparse-slurm: error: $tmp/c/$st/config: world: not a count from 1 to 1000000: '${shown[$i]}'"
done
fresh c
printf 'trace %s\nworld \n' "$tmp/trace" >c/$st/config # no world size: the ranks found
tsr "config without a world size" 0 finish -o "$tmp/c"
printf 'trace %s\nworld 1\n' "$run_cmd" >c/$st/config
tsr "config trace relative" 1 finish -o "$tmp/c"
says "config trace relative" "tlparse-slurm: error: $tmp/c/$st/config: trace: not an absolute path without control characters: '$run_cmd'"
printf 'trace /x%s[2J\nworld 1\n' "$E" >c/$st/config
tsr "config trace with ESC" 1 finish -o "$tmp/c"
says "config trace with ESC" "tlparse-slurm: error: $tmp/c/$st/config: trace: not an absolute path without control characters: '/x\x1b[2J'"
printf 'trace /x\nworld 1\neval touch CANARY\n' >c/$st/config
tsr "config with another line" 1 finish -o "$tmp/c"
says "config with another line" "tlparse-slurm: error: $tmp/c/$st/config: not a line of trace world: 'eval touch CANARY'"
rm c/$st/config && ln -s "$tmp/secret" c/$st/config
tsr "config a link" 1 finish -o "$tmp/c"
says "config a link" "tlparse-slurm: error: $tmp/c/$st/config: a symbolic link, not a file tlparse-slurm wrote"

# ---- the names of state files --------------------------------------------------------------
for name in "rank_$run_cmd.status:$run_cmd" 'rank_1+1.failed:1+1' "rank_a[$run_cmd].claim.1.0:a[$run_cmd]" \
    'rank_007.status:007' 'rank_4294967296.status:4294967296'; do
    fresh c
    : >"c/$st/${name%:*}"
    tsr "file ${name%:*}" 1 finish -o "$tmp/c"
    says "file ${name%:*}" "tlparse-slurm: error: $tmp/c/$st/${name%:*}: not a rank number: '${name#*:}'"
done
fresh c
: >"c/$st/node.$run_cmd"
tsr "file node.$run_cmd" 1 finish -o "$tmp/c"
says "file node.$run_cmd" "tlparse-slurm: error: $tmp/c/$st/node.$run_cmd: not a node name: '$run_cmd'"
fresh c
: >"c/$st/node.n2${E}[31m"
tsr "file node.n2 ESC" 1 finish -o "$tmp/c"
says "file node.n2 ESC" "tlparse-slurm: error: $tmp/c/$st/node.n2\x1b[31m: not a node name: 'n2\x1b[31m'"

# ---- the lines of node files -------------------------------------------------------------
lines=("found a[$run_cmd] /x" 'found 1+1 /x' 'found 1 x' "found 1 /x${E}[2J" 'found  /x' 'dup 99999999999 /x')
shown=("found a[$run_cmd] /x" 'found 1+1 /x' 'found 1 x' 'found 1 /x\x1b[2J' 'found  /x' 'dup 99999999999 /x')
for i in "${!lines[@]}"; do
    fresh c
    printf 'trace /x\n%s\nlisted 1\nend 0\n' "${lines[$i]}" >c/$st/node.n2
    tsr "node file: ${shown[$i]}" 1 finish -o "$tmp/c"
    k=${shown[$i]%% *}
    says "node file: ${shown[$i]}" "tlparse-slurm: error: $tmp/c/$st/node.n2: not a line '$k RANK LOG' (a rank, an absolute path without control characters): '${shown[$i]}'"
done
for l in "end BASH_VERSINFO[$run_cmd]0|end: not an exit status|BASH_VERSINFO[$run_cmd]0" \
    "listed 1+1|listed: not a count|1+1" "trace $run_cmd|trace: not an absolute path without control characters|$run_cmd" \
    "eval touch CANARY|not a line of trace, found, dup, listed, error or end|eval touch CANARY"; do
    IFS='|' read -r line why value <<<"$l"
    fresh c
    printf '%s\n' "$line" >c/$st/node.n2
    tsr "node file: $line" 1 finish -o "$tmp/c"
    says "node file: $line" "tlparse-slurm: error: $tmp/c/$st/node.n2: $why: '$value'"
done
# an error line is a node's words: shown, made printable
fresh c
printf 'trace /x\nerror %s]0;owned\a%s[2Jgone\nend 1\n' "$E" "$E" >c/$st/node.n2
tsr "node file: error with escapes" 1 finish -o "$tmp/c" --world-size 2
has err.txt "tlparse-slurm: rank 1 has no report: no log of rank 1 (dedicated_log_torch_trace_rank_1*.log) in $tmp/trace on any node (n1); on node n2, \x1b]0;owned\x07\x1b[2Jgone"

# ---- a rank's status and messages --------------------------------------------------------
for l in "exit BASH_VERSINFO[$run_cmd]0|exit: not an exit status|BASH_VERSINFO[$run_cmd]0" \
    "exit 1+1|exit: not an exit status|1+1" "node n1;touch CANARY|node: not a node name|n1;touch CANARY" \
    "log $run_cmd|log: not an absolute path without control characters|$run_cmd"; do
    IFS='|' read -r line why value <<<"$l"
    fresh c
    printf '%s\nnode n1\nlog /x\nexit 3\n' "$line" >c/$st/rank_0.status
    tsr "rank_0.status: $line" 1 finish -o "$tmp/c"
    says "rank_0.status: $line" "tlparse-slurm: error: $tmp/c/$st/rank_0.status: $why: '$value'"
done
# tlparse's messages (a log's bytes may be in them) are shown made printable
fresh c
printf 'node n1\nlog /x\nexit 3\n' >c/$st/rank_0.status
printf 'tlparse: error: %s]0;owned\a%s[2Jbad log\r\n' "$E" "$E" >c/$st/rank_0.out
tsr "rank_0.out with escapes" 1 finish -o "$tmp/c"
has err.txt "tlparse-slurm: rank 0 has no report: tlparse --rank-only exited 3 on node n1: tlparse: error: \x1b]0;owned\x07\x1b[2Jbad log\x0d"
has err.txt "tlparse-slurm:   to parse rank 0 again: tlparse-slurm rank 0 $tmp/trace -o $tmp/c --node n1"
# a recorded reason that is a link to a file of ours: not shown; a FIFO: not waited for
fresh c
ln -s "$tmp/secret" c/$st/rank_0.failed
tsr "rank_0.failed a link" 1 finish -o "$tmp/c"
says "rank_0.failed a link" "tlparse-slurm: error: $tmp/c/$st/rank_0.failed: a symbolic link, not a file tlparse-slurm wrote"
fresh c
mkfifo c/$st/rank_0.failed
tsr "rank_0.failed a FIFO" 1 finish -o "$tmp/c"
says "rank_0.failed a FIFO" "tlparse-slurm: error: $tmp/c/$st/rank_0.failed: not a regular file"
fresh c
mkdir c/$st/rank_0.claim.local.0 && ln -s "$tmp/secret" c/$st/rank_0.claim.local.0/node
rm c/$st/rank_0.status
tsr "a claim's node a link" 1 finish -o "$tmp/c"
says "a claim's node a link" "tlparse-slurm: error: $tmp/c/$st/rank_0.claim.local.0/node: a symbolic link, not a file tlparse-slurm wrote"

# ---- what srun and Slurm said ------------------------------------------------------------
for l in "steps.rc|1+1|not an exit status|1+1" "nodejob|id 1\nstate $run_cmd|state: not a job state|$run_cmd" \
    "nodejob|id a[$run_cmd]|id: not a job id|a[$run_cmd]" "nodes|n1;touch CANARY|not a node name|n1;touch CANARY"; do
    IFS='|' read -r file text why value <<<"$l"
    fresh c
    printf '%b\n' "$text" >"c/$st/$file"
    tsr "$file: $value" 1 finish -o "$tmp/c"
    says "$file: $value" "tlparse-slurm: error: $tmp/c/$st/$file: $why: '$value'"
done
fresh c
printf 'n1\nn2\n' >c/$st/nodes
printf 'srun: error: n2: task 1: Killed%s]0;owned\a\n' "$E" >c/$st/steps.err
tsr "steps.err with escapes" 1 finish -o "$tmp/c" --world-size 2
has err.txt "tlparse-slurm: rank 1 has no report: no log of rank 1 (dedicated_log_torch_trace_rank_1*.log) in $tmp/trace on any node (n1); node n2 did not report (srun: n2: task 1: Killed\x1b]0;owned\x07)"

# ---- links planted where we write: replaced, never written through ----------------------
fresh c
rm c/$st/node.n1 && ln -s "$tmp/victim" c/$st/node.n1
ln -sf "$tmp/victim" c/$st/rank_0.status
tsr "node: node.n1 and rank_0.status links" 0 node "$tmp/trace" -o "$tmp/c"
intact "node: node.n1 and rank_0.status links"
regular "node: node.n1" c/$st/node.n1
regular "node: rank_0.status" c/$st/rank_0.status
has c/$st/node.n1 "found 0 $tmp/trace/dedicated_log_torch_trace_rank_0.log"
fresh c
ln -s "$tmp/victim" c/$st/rank_0.out
tsr "node: rank_0.out a link" 0 node "$tmp/trace" -o "$tmp/c"
intact "node: rank_0.out a link"
regular "node: rank_0.out" c/$st/rank_0.out
ln -s "$tmp/victim" c/$st/rank_1.failed.out
tsr "finish: rank_1.failed.out a link" 1 finish -o "$tmp/c" --world-size 2
intact "finish: rank_1.failed.out a link"
regular "finish: rank_1.failed.out" c/$st/rank_1.failed.out
fresh c
rm -rf c/$st && ln -s "$tmp/victimdir" c/$st
tsr "node: the state folder a link" 1 node "$tmp/trace" -o "$tmp/c"
says "node: the state folder a link" "tlparse-slurm: error: $tmp/c/$st is a symbolic link, not the folder tlparse-slurm made"
tsr "finish: the state folder a link" 1 finish -o "$tmp/c"
tsr "rank: the state folder a link" 1 rank 0 "$tmp/trace" -o "$tmp/c"
intact "the state folder a link"

# ---- arguments ---------------------------------------------------------------------------
# a trace path with a newline (the config it would write holds this world), then finish
nl_trace="$tmp/x"$'\n'"world BASH_VERSINFO[$run_cmd]0"
tsr "node: a trace path with a newline" 2 node "$nl_trace" -o "$tmp/c2"
usage_says "node: a trace path with a newline" "a control character in the trace folder's name: $tmp/x\x0aworld BASH_VERSINFO[$run_cmd]0"
tsr "finish after it" 1 finish -o "$tmp/c2"
says "finish after it" "tlparse-slurm: error: $tmp/c2 does not exist"
tsr "node: -o with ESC" 2 node "$tmp/trace" -o "$tmp/o${E}[31m"
usage_says "node: -o with ESC" "-o: a control character in the folder's name: $tmp/o\x1b[31m"
for a in "--world-size:a[$run_cmd]:--world-size: not a count from 1 to 1000000" \
    "--world-size:99999999999999999999:--world-size: not a count from 1 to 1000000" \
    "-j:BASH_VERSINFO[$run_cmd]0:-j: not a count from 1 to 4096"; do
    IFS=: read -r opt value why <<<"$a"
    tsr "finish $opt $value" 2 finish -o "$tmp/base" "$opt" "$value"
    usage_says "finish $opt $value" "$why: $value"
done
tsr "rank 4294967296" 2 rank 4294967296 "$tmp/trace" -o "$tmp/base"
usage_says "rank 4294967296" "not a rank number: 4294967296"
tsr "rank --node n1;touch" 2 rank 0 "$tmp/trace" -o "$tmp/base" --node 'n1;touch CANARY'
usage_says "rank --node n1;touch" "--node: not a node name: n1;touch CANARY"
tsr "_landing $run_cmd" 2 _landing "$run_cmd" -o "$tmp/base"
usage_says "_landing $run_cmd" "_landing: not a job id: $run_cmd"
tsr "unknown option with ESC" 2 finish -o "$tmp/base" "--x${E}[2J"
usage_says "unknown option with ESC" "unknown option --x\x1b[2J"

# ---- the environment ---------------------------------------------------------------------
for v in "SLURMD_NODENAME|n1${E}[31m|a node name|n1\x1b[31m" "SLURMD_NODENAME|../../victim|a node name|../../victim" \
    "SLURM_STEP_ID|$run_cmd|a step id|$run_cmd" "SLURM_JOB_ID|1/../../x|a job id|1/../../x"; do
    IFS='|' read -r name value what value_shown <<<"$v"
    tsr_env=("$name=$value")
    tsr "$name=$value_shown" 1 node "$tmp/trace" -o "$tmp/c3"
    tsr_env=()
    says "$name=$value_shown" "tlparse-slurm: error: the environment's $name is not $what: '$value_shown'"
done
intact "the environment"

# ---- hostile but valid names: taken as they are, and nothing runs ------------------------
# a trace folder named with $(...) and `...`; logs named with $(...), ESC and a newline
odd="$tmp/t$run_cmd\`touch CANARY\`"
mkdir "$odd"
cp "$here/fixtures/shapes.log" "$odd/dedicated_log_torch_trace_rank_0.log"
cp "$here/fixtures/shapes.log" "$odd/dedicated_log_torch_trace_rank_1_$run_cmd.log"
cp "$here/fixtures/shapes.log" "$odd/dedicated_log_torch_trace_rank_2_${E}[31m.log"
cp "$here/fixtures/shapes.log" "$odd/dedicated_log_torch_trace_rank_3_"$'\n'".log"
tsr "node: odd names" 0 node "$odd" -o "$tmp/c4"
has err.txt "tlparse-slurm: n1: rank 1: $odd/dedicated_log_torch_trace_rank_1_$run_cmd.log: ok"
has err.txt "tlparse-slurm: n1: warning: $odd/dedicated_log_torch_trace_rank_2_\x1b[31m.log has a control character in its name: not parsed"
has err.txt "tlparse-slurm: n1: warning: $odd/dedicated_log_torch_trace_rank_3_\x0a.log has a control character in its name: not parsed"
tsr "finish: odd names" 1 finish -o "$tmp/c4" --world-size 4
has err.txt "tlparse-slurm: 2 rank(s) without a report: 2 3; $tmp/c4/index.html lists them with the reason"
if [ -s c4/rank_1/index.html ]; then ok; else bad "odd names: no report of rank 1"; fi

summary_line slurmstate
