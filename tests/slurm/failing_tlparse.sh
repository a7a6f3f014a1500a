#!/usr/bin/env bash
# A tlparse that fails on purpose, for tests/slurm.sh (TLPARSE=this): it runs $TL_REAL_TLPARSE
# but for `--rank-only LOG` of these ranks (read from LOG's name):
#   TL_FAIL_EXIT=R   says "tlparse: error: injected failure (rank R)" and exits 3, writing nothing
#   TL_FAIL_KILL=R   kills the tlparse-slurm node task that runs it (SIGKILL to its process
#                    group: itself too), as a node going down would
set -u
real=${TL_REAL_TLPARSE:?}
log='' prev=''
for a in "$@"; do
    [ "$prev" = --rank-only ] && log=$a
    prev=$a
done
rank=''
case ${log##*/} in dedicated_log_torch_trace_rank_*)
    rank=${log##*/dedicated_log_torch_trace_rank_}
    rank=${rank%%[._]*}
    ;;
esac
if [ -n "$rank" ] && [ "$rank" = "${TL_FAIL_EXIT:-}" ]; then
    echo "Processing the log..." >&2
    echo "tlparse: error: injected failure (rank $rank)" >&2
    exit 3
fi
if [ -n "$rank" ] && [ "$rank" = "${TL_FAIL_KILL:-}" ]; then
    # the task is the topmost `tlparse-slurm node ...` above us (a rank runs in a subshell of it)
    p=$$ task=''
    while [ "$p" -gt 1 ]; do
        if tr '\0' '\n' <"/proc/$p/cmdline" | grep -qx node &&
            tr '\0' '\n' <"/proc/$p/cmdline" | grep -q 'tlparse-slurm$'; then
            task=$p
        fi
        p=$(awk '{print $4}' "/proc/$p/stat")
    done
    if [ -n "$task" ]; then # with every process of its group: this one, its parent shell
        kill -KILL -- "-$(awk '{print $5}' "/proc/$task/stat")"
        exit 137
    fi
    echo "failing_tlparse: no tlparse-slurm node task above $$" >&2
    exit 99
fi
exec "$real" "$@"
