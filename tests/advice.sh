#!/usr/bin/env bash
# The advice of symptoms whose cause the log names (tests/advice_check.py): one object's
# identity guarded (train/eval, an optional argument, a flag), a graph break in a loop, an
# exception that ended the program, a frame that failed and ran in eager mode, a logger call,
# a disabled function, a Triton kernel out of GPU memory; each in trace and text form, as
# PyTorch 2.6 and 2.13 write it, on small logs written by hand. Then the summary a user reads
# of one of them.
# Usage: tests/advice.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, need_python3, new_tmp, bad
bin=$(realpath "$1")
need_python3 advice
python3 "$here/advice_check.py" "$bin" || fail=$((fail + 1))
new_tmp
cd "$tmp" || exit 1
# a break in a loop reads as what it is: the function ran in eager mode, the break the cause
cat >loop.log <<'LOG'
I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:3192] [0/0] create_env
V1127 10:00:00.000000 1 torch/_dynamo/symbolic_convert.py:435] [0/0] [__graph_breaks] Graph break in user code at /w/m.py:9
V1127 10:00:00.000000 1 torch/_dynamo/symbolic_convert.py:435] [0/0] [__graph_breaks] Reason: Unsupported: builtin: print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False
V1127 10:00:00.000000 1 torch/_dynamo/symbolic_convert.py:435] [0/0] [__graph_breaks] User code traceback:
V1127 10:00:00.000000 1 torch/_dynamo/symbolic_convert.py:435] [0/0] [__graph_breaks]   File "/w/m.py", line 9, in accumulate
V1127 10:00:00.000000 1 torch/_dynamo/symbolic_convert.py:435] [0/0] [__graph_breaks]     print("step", i)
LOG
"$bin" loop.log --summary >loop.txt 2>err.txt || bad "loop.log --summary: exit $?"
grep -qxF "     dynamo could not handle it: the function was skipped and runs in eager mode" loop.txt ||
    bad "loop summary: not said to run in eager mode: $(cat loop.txt)"
grep -qF "     What: A graph break inside a loop: the whole function ran in eager mode." loop.txt ||
    bad "loop summary: what: $(cat loop.txt)"
[ "$fail" = 0 ] || exit 1
echo "advice: ok"
