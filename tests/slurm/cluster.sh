# shellcheck shell=bash
# A real Slurm of two nodes on this machine, for tests/slurm.sh: Debian's munged, slurmctld and
# two slurmd (nodes n1 and n2, both 127.0.0.1 on ports of their own), each run by us in the
# foreground with its config, socket, state, spool, pid and log files in one folder; no systemd,
# no cgroups, no accounting database. Ports are picked free, so that two runs, or a Slurm of
# the system, do not clash. Sourced:
#   cluster_start       start it in a new folder of /tmp ($cluster_dir: munged wants every folder
#                       above its socket open to all, which a suite's own mktemp -d is not);
#                       exports SLURM_CONF; 1 on failure (with the daemons' last log lines)
#   cluster_stop        cancel every job, stop the daemons (by their pids), check none is left,
#                       remove the folder
#   cluster_wait ID...  wait until these jobs have ended (at most $cluster_timeout s each)
#   cluster_state ID    a job's JobState and ExitCode ("COMPLETED 0:0")
# Needs munge, slurmctld, slurmd, slurm-client (Debian packages) and python3 (free ports).

cluster_dir='' cluster_pids=() cluster_timeout=120

# a TCP port nothing listens on, outside the kernel's ephemeral range (28000-32767)
cluster_free_port() {
    python3 - "$@" <<'PY'
import random, socket, sys
taken = set(int(p) for p in sys.argv[1:])
while True:
    p = random.randint(28000, 32700)
    if p in taken:
        continue
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
PY
}

cluster_logs() { # the last lines of each daemon's log, to say why it did not start
    local f
    for f in "$cluster_dir"/log/*; do
        [ -s "$f" ] && { echo "--- $f"; tail -n 8 "$f"; }
    done
}

cluster_start() {
    cluster_dir=$(mktemp -d /tmp/tl-slurm.XXXXXX) || return 1
    local d=$cluster_dir host p_ctl p_n1 p_n2 i
    mkdir -p "$d"/{etc,run,state,spool/n1,spool/n2,log,munge} || return 1
    # munged wants its socket's folders open to all, and its key private; --force makes a
    # warning of a / closed to others (a root unpacked from a tar of a mktemp folder, as
    # ../shared/tools/fresh-debian's is): every client here runs as root
    chmod 755 "$d" "$d/run" && chmod 700 "$d/munge" || return 1
    head -c 1024 /dev/urandom >"$d/munge/munge.key" && chmod 600 "$d/munge/munge.key" || return 1
    TL_CLUSTER_TAG=$d munged -F --force --socket="$d/run/munge.sock" --key-file="$d/munge/munge.key" \
        --pid-file="$d/run/munged.pid" --log-file="$d/log/munged.log" \
        --seed-file="$d/munge/munged.seed" >>"$d/log/munged.out" 2>&1 &
    cluster_pids+=($!)
    for ((i = 0; i < 50; i++)); do [ -S "$d/run/munge.sock" ] && break; sleep 0.1; done
    [ -S "$d/run/munge.sock" ] || { echo "cluster: munged did not start"; cluster_logs; return 1; }

    host=$(hostname -s 2>/dev/null || hostname)
    p_ctl=$(cluster_free_port) && p_n1=$(cluster_free_port "$p_ctl") &&
        p_n2=$(cluster_free_port "$p_ctl" "$p_n1") || return 1
    cat >"$d/etc/slurm.conf" <<EOF
ClusterName=tltest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$p_ctl
SlurmdPort=$p_n1
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/run/munge.sock
SlurmUser=$(id -un)
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd-%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerParameters=batch_sched_delay=0
KillWait=2
InactiveLimit=0
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$p_n1 CPUs=2 State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$p_n2 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
    # No cgroup is used (proctrack/linuxproc, task/none), but slurmd loads a cgroup plugin all
    # the same and, left to guess which, fails where /sys/fs/cgroup is not mounted (a chroot);
    # named, it is loaded and never used.
    echo "CgroupPlugin=cgroup/v1" >"$d/etc/cgroup.conf"
    export SLURM_CONF=$d/etc/slurm.conf
    TL_CLUSTER_TAG=$d slurmctld -D -i -f "$SLURM_CONF" >>"$d/log/slurmctld.out" 2>&1 &
    cluster_pids+=($!)
    for n in n1 n2; do
        TL_CLUSTER_TAG=$d slurmd -D -f "$SLURM_CONF" -N "$n" >>"$d/log/slurmd-$n.out" 2>&1 &
        cluster_pids+=($!)
    done
    # up when both nodes are idle
    for ((i = 0; i < 300; i++)); do
        [ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -cx idle)" = 2 ] && return 0
        sleep 0.1
    done
    echo "cluster: the nodes did not come up in 30 s: $(sinfo -N 2>&1 | tr '\n' ' ')"
    cluster_logs
    return 1
}

cluster_state() {
    scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' |
        sed -n 's/^JobState=//p; s/^ExitCode=//p' | xargs
}

cluster_wait() {
    local id t st
    for id in "$@"; do
        for ((t = 0; t < cluster_timeout * 5; t++)); do
            st=$(cluster_state "$id")
            case $st in
            '' | PENDING* | RUNNING* | CONFIGURING* | COMPLETING*) sleep 0.2 ;;
            *) break ;;
            esac
        done
    done
}

cluster_stop() {
    [ -n "$cluster_dir" ] || return 0
    local ids i p left
    ids=$(squeue -h -o %i 2>/dev/null | xargs)
    if [ -n "$ids" ]; then
        # shellcheck disable=SC2086
        scancel $ids 2>/dev/null
        for ((i = 0; i < 100; i++)); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    # the slurmd first (they end their steps), then slurmctld, then munged
    for ((i = ${#cluster_pids[@]} - 1; i >= 0; i--)); do
        p=${cluster_pids[$i]}
        kill -TERM "$p" 2>/dev/null || continue
        for ((t = 0; t < 100; t++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    cluster_pids=()
    # nothing of ours may outlive the cluster: a daemon (they carry our tag) or a job's task
    # (it carries our SLURM_CONF and a SLURM_JOB_ID)
    left=$(for p in /proc/[0-9]*; do
        tr '\0' '\n' 2>/dev/null <"$p/environ" | awk -v tag="TL_CLUSTER_TAG=$cluster_dir" \
            -v conf="SLURM_CONF=${SLURM_CONF:-}" '$0 == tag {t = 1} $0 == conf {c = 1} /^SLURM_JOB_ID=/ {j = 1}
            END {exit !(t || (c && j))}' && echo "${p#/proc/} ($(tr '\0' ' ' 2>/dev/null <"$p/cmdline"))"
    done)
    rm -rf "$cluster_dir"
    cluster_dir=''
    unset SLURM_CONF
    [ -z "$left" ] || { echo "cluster: processes left after the stop: $left"; return 1; }
}
