#!/usr/bin/env bash
# scripts/tlparse-slurm under a real Slurm: a cluster of two nodes (n1, n2) started on this
# machine by tests/slurm/cluster.sh (Debian's munged, slurmctld, two slurmd; all in a folder of
# /tmp, stopped at the end, nothing left running). On rank logs of our own
# (tests/make_rank_logs.py: 8 ranks that diverge), split between the nodes' "local" folders
# (TRACE_DIR/%N) or shared by both:
#   - without Slurm: `node` then `finish` give what one machine's --all-ranks-html gives;
#   - submit --after a running job, and --after a job held in the queue (a relay job waits for
#     it to start): the node job runs on its nodes after it, the landing job after that; the
#     report is byte-identical to one machine's two-step run and to its --all-ranks-html (but
#     for what says how a report was made, tests/strip_runinfo.py, and raw.jsonl's first line,
#     which a one-step run carries from rank to rank: spec modes.md §1.3);
#   - run inside an sbatch job of two nodes that both see every log: each rank parsed once;
#   - failures (tests/slurm/failing_tlparse.sh): a rank whose tlparse exits 3, a log that is
#     no log, a node task killed while parsing, a rank no node has: the landing job exits 1, the
#     landing page lists each as missing with its reason, `rank N --node NODE` parses one again;
#     run's exit status and messages;
#   - the command line: --help, bad arguments, an existing OUT.
# With ../shared (or $TL_SHARED), the corpus's multi-rank logs go through submit as well,
# compared the same way; without it that part is said in one line and the rest runs.
# `tests/slurm.sh BIN --torch` runs instead a real two-rank PyTorch job (gloo, a compiled
# function with an all_reduce) as srun tasks on both nodes, each tracing into its node's
# folder, then submit --after it (tests/torch.sh runs it; PyTorch from $TORCH_PYTHON, else
# ../shared/tools/torch-python).
# Usage: tests/slurm.sh path/to/tlparse [--torch]
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, shared, ok, bad, has, hasnt, summary_line
# shellcheck source=tests/slurm/cluster.sh
. "$(dirname "$0")/slurm/cluster.sh" # cluster_start, _stop, _wait, _state, _free_port
start=$SECONDS
bin=$(realpath "$1")
mode=${2:-}
root=$(cd "$here/.." && pwd)
ts=$root/scripts/tlparse-slurm
shared=$(realpath -m "$shared")
missing=''
for c in munged:munge slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client srun:slurm-client \
    scontrol:slurm-client squeue:slurm-client sinfo:slurm-client scancel:slurm-client \
    python3:python3; do
    command -v "${c%%:*}" >/dev/null 2>&1 || missing="$missing ${c%%:*} (Debian package ${c#*:});"
done
if [ -n "$missing" ]; then
    echo "slurm: FAIL: missing:$missing scripts/deps.sh check installs them"
    exit 1
fi
if [ "$(id -u)" != 0 ]; then # slurmd runs jobs as their user: it must be root
    echo "slurm: FAIL: needs root (the cluster's slurmd runs as root)"
    exit 1
fi
tmp=$(mktemp -d)
trap 'cluster_stop >/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export TLPARSE=$bin
unset SLURM_JOB_ID SLURM_JOBID # in case the suite itself runs inside a job

# ---- helpers -----------------------------------------------------------------------------
# stripped DIR: DIR.s, a copy without what says how it was made and without our state folder
stripped() {
    rm -rf "$1.s" && cp -r "$1" "$1.s" && rm -rf "$1.s/.tlparse-slurm" &&
        python3 "$here/strip_runinfo.py" "$1.s"
}
same_tree() { # same_tree WHAT A B: byte-identical, once stripped
    stripped "$2" && stripped "$3"
    if diff -r "$2.s" "$3.s" >diff.txt; then ok; else bad "$1: $2 and $3 differ: $(head -c 600 diff.txt)"; fi
}
# same_as_one_step WHAT ONE OUT: as same_tree, but for raw.jsonl's first line (the string
# table a one-step run carries from rank to rank)
same_as_one_step() {
    stripped "$2" && stripped "$3"
    if diff -r -x raw.jsonl "$2.s" "$3.s" >diff.txt; then ok; else bad "$1: $2 and $3 differ: $(head -c 600 diff.txt)"; fi
    local f
    for f in "$2".s/rank_*/raw.jsonl; do
        cmp -s <(tail -n +2 "$f") <(tail -n +2 "$3.s/${f#"$2".s/}") || bad "$1: $f differs beyond its first line"
    done
}
two_step() { # two_step TRACE OUT: one machine's --rank-only per log, then --from-summaries
    local f n
    mkdir -p "$2"
    for f in "$1"/dedicated_log_torch_trace_rank_*.log; do
        n=${f##*_rank_}
        n=${n%%[._]*}
        "$bin" --rank-only "$f" -o "$2/rank_$n" --no-browser >/dev/null 2>&1
    done
    "$bin" --all-ranks-html --from-summaries "$2" --no-browser >/dev/null 2>&1 || bad "two-step $1: exit $?"
}
check_exit() { # check_exit WHAT WANT GOT
    if [ "$2" = "$3" ]; then ok; else bad "$1: exit $3, want $2: $(head -c 600 err.txt)"; fi
}
submit() { # submit ARGS...: tlparse-slurm submit; its stdout in sub.txt, stderr in err.txt
    "$ts" submit "$@" >sub.txt 2>err.txt
    check_exit "submit $*" 0 $?
}
job_of() { sed -n "s/^$1 //p" "$2/.tlparse-slurm/jobs"; } # job_of KIND OUT
wait_report() { # wait_report OUT: until submit's jobs have ended (its relay's too)
    local relay
    relay=$(job_of relay "$1")
    [ -z "$relay" ] || cluster_wait "$relay"
    cluster_wait "$(job_of landing "$1")"
}
wait_running() { # wait_running JOBID: until it runs (at most 30 s)
    local i
    for ((i = 0; i < 150; i++)); do
        case $(cluster_state "$1") in RUNNING*) return 0 ;; esac
        sleep 0.2
    done
    bad "job $1 did not start: $(cluster_state "$1")"
}
job_is() { # job_is WHAT JOBID STATE: the job ended so ("COMPLETED 0:0")
    local got
    got=$(cluster_state "$2")
    if [ "$got" = "$3" ]; then ok; else bad "$1: job $2 is '$got', want '$3'"; fi
}
# ranks_say OUT RANK TEXT: the landing page's table has the rank without a report, for this
# reason, and its summary.json agrees
ranks_say() {
    local out=$1 r=$2 why=$3
    has "$out/index.html" "Rank $r</td><td class='status bad' data-value='3'>no report</td><td colspan='6' class='why'>$why"
    hasnt "$out/index.html" "<a href=\"rank_$r/index.html\">"
    python3 - "$out/summary.json" "$r" "$why" <<'PY' || bad "$out/summary.json: rank $r is not missing with '$why'"
import json, sys
s = json.load(open(sys.argv[1]))
r = [x for x in s["ranks"] if x["rank"] == int(sys.argv[2])]
assert r and r[0]["report"] is None and sys.argv[3] in (r[0]["error"] or ""), r
PY
}
ranks_ok() { # ranks_ok OUT RANK...: these ranks have their report, linked from the landing page
    local out=$1 r
    shift
    for r in "$@"; do
        has "$out/index.html" "<a href=\"rank_$r/index.html\">Rank $r</a>"
        if [ -s "$out/rank_$r/index.html" ]; then ok; else bad "$out/rank_$r/index.html missing"; fi
    done
}
# node_logs DIR NODE RANK...: links in DIR/NODE to the rank logs of gen/ (a node's local disk)
node_logs() {
    local d=$1/$2 r
    shift 2
    mkdir -p "$d"
    for r in "$@"; do ln -s "$tmp/gen/dedicated_log_torch_trace_rank_$r.log" "$d/"; done
}

# ---- a real PyTorch job of two ranks (--torch) -------------------------------------------
if [ "$mode" = --torch ]; then
    py=${TORCH_PYTHON:-$shared/tools/torch-python}
    command -v "${py%% *}" >/dev/null || { echo "slurm: FAIL: no PyTorch (TORCH_PYTHON or $shared/tools/torch-python)"; exit 1; }
    cluster_start || { echo "slurm: FAIL: the cluster did not start"; exit 1; }
    cp "$here/slurm/ranks_job.py" "$tmp/"
    port=$(cluster_free_port) && port2=$(cluster_free_port "$port") &&
        port3=$(cluster_free_port "$port" "$port2")
    # each task traces into its node's folder (its "local disk"): trace/n1, trace/n2; gloo on
    # the loopback (PyTorch 2.6 of Debian has no libuv); inductor's cache is this run's.
    # Two ranks on one machine hung now and then at their end (PyTorch 2.6's gloo teardown;
    # the job, which takes about 20 s, now skips it): an attempt has 150 s, and up to two more
    # start afresh on other ports, each task first emptying its node's trace folder.
    cat >train.sh <<EOF
#!/bin/bash
ports=($port $port2 $port3)
for attempt in 0 1 2; do
    export TL_MASTER_PORT=\${ports[\$attempt]}
    timeout --kill-after=20 150 srun --nodes=2 --ntasks=2 --ntasks-per-node=1 bash -c 'cd $tmp && \\
        rm -rf $tmp/trace/\$SLURMD_NODENAME && RANK=\$SLURM_PROCID \\
        WORLD_SIZE=\$SLURM_NTASKS MASTER_ADDR=127.0.0.1 MASTER_PORT=\$TL_MASTER_PORT \\
        USE_LIBUV=0 GLOO_SOCKET_IFNAME=lo TORCHINDUCTOR_CACHE_DIR=$tmp/inductor \\
        TORCH_TRACE=$tmp/trace/\$SLURMD_NODENAME exec $py ranks_job.py' && exit 0
    echo "train.sh: attempt \$((attempt + 1)) did not finish" >&2
done
exit 1
EOF
    train=$(sbatch --parsable -N2 --time=10 -o "$tmp/train.out" train.sh)
    submit "$tmp/trace/%N" -o "$tmp/out" --after "$train" --world-size 2
    cluster_timeout=700 wait_report out
    job_is "the training job" "$train" "COMPLETED 0:0"
    job_is "the landing job" "$(job_of landing out)" "COMPLETED 0:0"
    [ "$(cluster_state "$train")" = "COMPLETED 0:0" ] || tail -n 30 train.out
    for n in 0:n1 1:n2; do # rank 0's log on n1's disk, rank 1's on n2's
        if ls "trace/${n#*:}/dedicated_log_torch_trace_rank_${n%:*}_"*.log >/dev/null 2>&1; then ok; else
            bad "no rank ${n%:*} log in trace/${n#*:}: $(ls -R trace)"
        fi
    done
    mkdir all && cp trace/n*/*.log all/
    "$bin" --all-ranks-html all -o one --no-browser >/dev/null 2>&1 || bad "one machine: exit $?"
    same_as_one_step "PyTorch: submit against one machine" one out
    two_step all two
    same_tree "PyTorch: submit against one machine's two steps" two out
    ranks_ok out 0 1
    if grep -rq 'all_reduce' out/rank_0; then ok; else bad "rank 0's report shows no all_reduce"; fi
    cluster_stop || bad "the cluster's stop"
    summary_line "slurm (PyTorch)" "($((SECONDS - start)) s)"
    exit
fi

# ---- our rank logs; one machine's reports of them ----------------------------------------
python3 "$here/make_rank_logs.py" gen --ranks 8 --pad-kb 16 --short 5 --extra 3 --gather 6 \
    --hit 1 --no-wait 7 >/dev/null || bad "make_rank_logs.py: exit $?"
"$bin" --all-ranks-html gen -o one --no-browser >/dev/null 2>&1 || bad "one machine: exit $?"
two_step gen two
# the nodes' local disks: ranks 0-3 on n1, 4-7 on n2
node_logs local n1 0 1 2 3
node_logs local n2 4 5 6 7

# ---- the command line, and the per-node step without Slurm -------------------------------
"$ts" --help >out.txt 2>err.txt
check_exit "--help" 0 $?
has out.txt "tlparse-slurm submit TRACE_DIR -o OUT"
"$ts" >out.txt 2>err.txt
check_exit "no command" 2 $?
"$ts" submit gen >out.txt 2>err.txt
check_exit "submit without -o" 2 $?
has err.txt "tlparse-slurm: error: -o OUT is required"
"$ts" submit gen -o x >out.txt 2>err.txt
check_exit "submit without nodes" 2 $?
has err.txt "submit needs --after JOBID, --nodes N or --nodelist LIST"
"$ts" rank x gen -o x >out.txt 2>err.txt
check_exit "rank x" 2 $?
"$ts" run gen -o x >out.txt 2>err.txt
check_exit "run outside an allocation" 1 $?
has err.txt "run is for inside a Slurm allocation"
# as on machines without a scheduler (ssh, pdsh): node on each machine, then finish
SLURMD_NODENAME=n1 "$ts" node "$tmp/local/%N" -o "$tmp/plain" >out.txt 2>err.txt
check_exit "node (n1)" 0 $?
SLURMD_NODENAME=n2 "$ts" node "$tmp/local/%N" -o "$tmp/plain" >out.txt 2>err.txt
check_exit "node (n2)" 0 $?
"$ts" finish -o "$tmp/plain" >out.txt 2>err.txt
check_exit "finish" 0 $?
has err.txt "tlparse-slurm: report: $tmp/plain/index.html"
same_tree "node and finish against one machine's two steps" two plain
same_as_one_step "node and finish against one machine" one plain
# no log anywhere, and no world size: nothing to report, and it says so
mkdir empty
"$ts" node "$tmp/empty" -o "$tmp/none" >out.txt 2>err.txt
check_exit "node on a folder without logs" 0 $?
"$ts" finish -o "$tmp/none" >out.txt 2>err.txt
check_exit "finish with no log" 1 $?
has err.txt "tlparse-slurm: error: no rank log was found, and no --world-size was given: no report to make"
"$ts" node "$tmp/nowhere" -o "$tmp/none2" >out.txt 2>err.txt
check_exit "node on a missing folder" 1 $?
has err.txt "$tmp/nowhere does not exist"
"$ts" finish -o "$tmp/none2" --world-size 2 >out.txt 2>err.txt
check_exit "finish with no log, two ranks" 1 $?
ranks_say none2 1 "no log of rank 1 (dedicated_log_torch_trace_rank_1*.log) in $tmp/nowhere; on node $(hostname -s), $tmp/nowhere does not exist"

cluster_start || { echo "slurm: FAIL: the cluster did not start"; exit 1; }

# ---- submit --after a running job: its nodes, after it -----------------------------------
train=$(sbatch --parsable -N2 -o /dev/null --wrap 'sleep 3')
wait_running "$train"
submit "$tmp/local/%N" -o "$tmp/outA" --after "$train" --world-size 8
has sub.txt "node job: "
has sub.txt "landing job: "
has sub.txt "report: $tmp/outA/index.html"
hasnt sub.txt "relay job"
nodejob=$(job_of nodes outA) landing=$(job_of landing outA)
cluster_wait "$landing"
job_is "submit --after: node job" "$nodejob" "COMPLETED 0:0"
job_is "submit --after: landing job" "$landing" "COMPLETED 0:0"
same_tree "submit --after against one machine's two steps" two outA
same_as_one_step "submit --after against one machine" one outA
# the node job ran on the training job's nodes once it had ended, the landing job after it
python3 - "$(scontrol show job -o "$train")" "$(scontrol show job -o "$nodejob")" \
    "$(scontrol show job -o "$landing")" <<'PY' || bad "the jobs' order and nodes"
import sys
jobs = [dict(f.split("=", 1) for f in j.split() if "=" in f) for j in sys.argv[1:]]
train, nodes, landing = jobs
assert nodes["NodeList"] == train["NodeList"] == "n[1-2]", (nodes["NodeList"], train["NodeList"])
assert nodes["StartTime"] >= train["EndTime"], (nodes["StartTime"], train["EndTime"])
assert landing["StartTime"] >= nodes["EndTime"], (landing["StartTime"], nodes["EndTime"])
assert "afterany:%s" % train["JobId"] in nodes["Dependency"] or nodes["Dependency"] == "(null)"
PY
for r in 0 1 2 3; do has outA/.tlparse-slurm/rank_$r.status "node n1"; done
for r in 4 5 6 7; do has outA/.tlparse-slurm/rank_$r.status "node n2"; done
has "outA/.tlparse-slurm/slurm-$landing.out" "tlparse-slurm: report: $tmp/outA/index.html"
# OUT exists now: submit refuses it without --overwrite
"$ts" submit "$tmp/local/%N" -o "$tmp/outA" --nodes 2 >out.txt 2>err.txt
check_exit "submit into an existing OUT" 1 $?
has err.txt "outA exists: pass --overwrite to replace it"

# ---- submit -j 2 --after a job still in the queue: a relay job submits when it starts ---
held=$(sbatch --parsable -N2 --hold -o /dev/null --wrap 'sleep 1')
submit "$tmp/local/%N" -o "$tmp/outB" --after "$held" --world-size 8 -j 2
has sub.txt "relay job: "
hasnt sub.txt "landing job: "
relay=$(job_of relay outB)
job_is "the relay job waits" "$relay" "PENDING 0:0"
scontrol release "$held"
cluster_wait "$relay"
job_is "relay job" "$relay" "COMPLETED 0:0"
landing=$(job_of landing outB)
if [ -n "$landing" ]; then ok; else bad "the relay job submitted no landing job: $(cat outB/.tlparse-slurm/slurm-"$relay".out)"; fi
cluster_wait "$landing"
job_is "submit --after a held job: landing job" "$landing" "COMPLETED 0:0"
nodejob=$(job_of nodes outB)
has outB/.tlparse-slurm/jobs "relay $relay"
python3 - "$(scontrol show job -o "$nodejob")" <<'PY' || bad "submit -j 2: the node job"
import sys
job = dict(f.split("=", 1) for f in sys.argv[1].split() if "=" in f)
assert job["NodeList"] == "n[1-2]" and job["NumTasks"] == "2" and job["CPUs/Task"] == "2", job
PY
same_tree "submit --after a held job against one machine's two steps" two outB

# ---- run inside an allocation whose nodes both see every log: each rank parsed once ------
job=$(sbatch --parsable -N2 -o "$tmp/runC.out" --wrap "$ts run $tmp/gen -o $tmp/outC --world-size 8 -j 2")
cluster_wait "$job"
job_is "run in sbatch" "$job" "COMPLETED 0:0"
same_tree "run in sbatch against one machine's two steps" two outC
for r in 0 1 2 3 4 5 6 7; do
    if [ "$(grep -c ": rank $r: .*: ok$" runC.out)" = 1 ]; then ok; else
        bad "rank $r was not parsed once: $(grep ": rank $r:" runC.out)"
    fi
done
for n in n1 n2; do
    if [ "$(grep -c '^found ' "outC/.tlparse-slurm/node.$n")" = 8 ]; then ok; else
        bad "node $n did not see the 8 logs: $(cat "outC/.tlparse-slurm/node.$n")"
    fi
done
has runC.out "tlparse-slurm: report: $tmp/outC/index.html"

# ---- failures: what failed, why, and parsing one rank again ------------------------------
# rank 2 (n1): tlparse exits 3; rank 4 (n2): no log but bytes; rank 6 (n2): its node task is
# killed; rank 7 (n2) is then never parsed; rank 8: no node has it
rm local/n2/dedicated_log_torch_trace_rank_4.log
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' >local/n2/dedicated_log_torch_trace_rank_4.log
TLPARSE=$here/slurm/failing_tlparse.sh TL_REAL_TLPARSE=$bin TL_FAIL_EXIT=2 TL_FAIL_KILL=6 \
    submit "$tmp/local/%N" -o "$tmp/outD" --nodelist 'n[1-2]' --world-size 9
nodejob=$(job_of nodes outD) landing=$(job_of landing outD)
cluster_wait "$landing"
job_is "failures: the node job" "$nodejob" "FAILED 137:0"
job_is "failures: the landing job" "$landing" "FAILED 1:0"
ranks_say outD 2 "tlparse --rank-only exited 3 on node n1: tlparse: error: injected failure (rank 2)"
ranks_say outD 4 "$tmp/local/n2/dedicated_log_torch_trace_rank_4.log is not a TORCH_TRACE log or TORCH_LOGS text: its first lines are binary"
ranks_say outD 6 "the task on node n2 stopped while parsing its log (srun: n2: task 1: Killed; job $nodejob ended FAILED, exit code 137:0)"
ranks_say outD 7 "its log $tmp/local/n2/dedicated_log_torch_trace_rank_7.log is on node n2, whose task stopped before parsing it (srun: n2: task 1: Killed"
ranks_say outD 8 "no log of rank 8 (dedicated_log_torch_trace_rank_8*.log) in $tmp/local/%N on any node (n1, n2)"
ranks_ok outD 0 1 3 5
log=outD/.tlparse-slurm/slurm-$landing.out
has "$log" "tlparse-slurm: 5 rank(s) without a report: 2 4 6 7 8"
has "$log" "tlparse-slurm:   to parse rank 2 again: tlparse-slurm rank 2 $tmp/local/%N -o $tmp/outD --node n1"
has "$log" "tlparse-slurm:   to parse rank 8 again: tlparse-slurm rank 8 $tmp/local/%N -o $tmp/outD"
# again, with what failed fixed: one rank at a time, on its node
rerun() { # rerun RANK NODE WANT_EXIT
    "$ts" rank "$1" "$tmp/local/%N" -o "$tmp/outD" --node "$2" >out.txt 2>err.txt
    check_exit "rank $1 --node $2" "$3" $?
}
rerun 2 n1 1
ranks_ok outD 2
ranks_say outD 4 "$tmp/local/n2/dedicated_log_torch_trace_rank_4.log is not a TORCH_TRACE log"
rm local/n2/dedicated_log_torch_trace_rank_4.log
ln -s "$tmp/gen/dedicated_log_torch_trace_rank_4.log" local/n2/
rerun 4 n2 1
rerun 6 n2 1
rerun 7 n2 1
has err.txt "tlparse-slurm: 1 rank(s) without a report: 8"
ranks_ok outD 0 1 2 3 4 5 6 7
ranks_say outD 8 "no log of rank 8 (dedicated_log_torch_trace_rank_8*.log) in $tmp/local/%N on any node (n1, n2)"
stripped outD
for r in 0 1 2 3 4 5 6 7; do
    if diff -r "two.s/rank_$r" "outD.s/rank_$r" >diff.txt; then ok; else
        bad "rank $r parsed again differs: $(head -c 400 diff.txt)"
    fi
done
rerun 8 n1 1
has err.txt "tlparse-slurm: error: no log of rank 8 (dedicated_log_torch_trace_rank_8*.log) in $tmp/local/n1 on n1"

# run: its exit status says a rank failed, and which
job=$(TLPARSE=$here/slurm/failing_tlparse.sh TL_REAL_TLPARSE=$bin TL_FAIL_EXIT=2 \
    sbatch --parsable -N1 -w n1 -o "$tmp/runE.out" --wrap "$ts run $tmp/local/%N -o $tmp/outE")
cluster_wait "$job"
job_is "run with a failing rank" "$job" "FAILED 1:0"
has runE.out "tlparse-slurm: rank 2 has no report: tlparse --rank-only exited 3 on node n1: tlparse: error: injected failure (rank 2)"
has runE.out "srun: error: n1: task 0: Exited with exit code 1"
ranks_say outE 2 "tlparse --rank-only exited 3 on node n1"
ranks_ok outE 0 1 3

# ---- the corpus's multi-rank logs --------------------------------------------------------
logs=$shared/corpus/logs
if [ -d "$logs/multi_rank_runtime" ]; then
    corpus=(multi_rank_logs multi_rank_runtime multi_rank_schedule collectives_parity)
    # multi_rank_runtime's ranks on the nodes' disks (0-3 on n1, 4-6 on n2), the others shared
    mkdir -p corpus/n1 corpus/n2
    for f in "$logs"/multi_rank_runtime/dedicated_log_torch_trace_rank_*.log; do
        case ${f##*_rank_} in [0-3].log) ln -s "$f" corpus/n1/ ;; *) ln -s "$f" corpus/n2/ ;; esac
    done
    landings=()
    for c in "${corpus[@]}"; do
        if [ "$c" = multi_rank_runtime ]; then
            submit "$tmp/corpus/%N" -o "$tmp/c_$c" --nodelist 'n[1-2]' --world-size 7
        else
            submit "$logs/$c" -o "$tmp/c_$c" --nodes 2
        fi
        landings+=("$(job_of landing "c_$c")")
        "$bin" --all-ranks-html "$logs/$c" -o "one_$c" --no-browser >/dev/null 2>&1 || bad "one machine, $c: exit $?"
        two_step "$logs/$c" "two_$c"
    done
    cluster_wait "${landings[@]}"
    for i in "${!corpus[@]}"; do
        c=${corpus[$i]}
        job_is "corpus $c: landing job" "${landings[$i]}" "COMPLETED 0:0"
        same_tree "corpus $c against one machine's two steps" "two_$c" "c_$c"
        same_as_one_step "corpus $c against one machine" "one_$c" "c_$c"
    done
else
    echo "slurm: ../shared absent: the corpus's multi-rank logs are not checked (our own ranks are)"
fi

cluster_stop || bad "the cluster's stop"
summary_line slurm "($((SECONDS - start)) s)"
