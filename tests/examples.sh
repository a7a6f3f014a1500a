#!/usr/bin/env bash
# The examples/ programs, built the way a user builds them: against libtlparse installed into
# a prefix and found with pkg-config, linked to the shared library and to the static one.
# graph_ops (a custom parser) must add its files to the report, numbered and listed like the
# built-in ones; list_entries (tl_each_entry) must list every entry of the demo trace.
# Usage: tests/examples.sh path/to/build/tlparse (its build folder is installed).
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, new_tmp; counts checks (ok, bad, same, has)
bin=$(realpath "$1")
build=$(dirname "$bin")
demo="$here/fixtures/demo.log"
show_file=0 # a failed has names the file only
new_tmp
for tool in cc make pkg-config; do
    command -v $tool >/dev/null || { echo "FAIL: examples: $tool not found (scripts/deps.sh check installs it)"; exit 1; }
done

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
    { echo "FAIL: examples: cmake --install $build failed:"; tail -20 "$tmp/install.log"; exit 1; }
pc=$(find "$prefix" -name tlparse.pc | head -1)
[ -n "$pc" ] || { echo "FAIL: examples: no tlparse.pc installed under $prefix"; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH=$(dirname "$pc")

for mode in shared static; do
    dir=$tmp/$mode
    cp -r "$here/../examples" "$dir"
    if [ $mode = static ]; then flag=STATIC=1; else flag=STATIC=0; fi
    if ! make -s -C "$dir" $flag >"$tmp/make.log" 2>&1; then
        bad "make -C examples $flag: $(tail -20 "$tmp/make.log")"
        continue
    fi
    ok
    # the shared build needs the installed library; the static one must not
    if [ $mode = shared ]; then
        # ldd's lines read whole first: grep -q, leaving at the first match, would make ldd die
        # of SIGPIPE now and then, which pipefail counts as no match
        needs=$(ldd "$dir/graph_ops")
        if grep -q 'libtlparse.so.1 => not found' <<<"$needs"; then ok; else bad "graph_ops is not linked to libtlparse.so.1: $needs"; fi
    else
        needs=$(ldd "$dir/graph_ops")
        if grep -q libtlparse <<<"$needs"; then bad "the static graph_ops needs $(grep libtlparse <<<"$needs")"; else ok; fi
    fi
    export LD_LIBRARY_PATH=$libdir

    out=$tmp/report-$mode
    (cd "$tmp" && "$dir/graph_ops" "$demo" "$out") >"$tmp/go.out" 2>"$tmp/go.err"
    rc=$?
    [ $rc = 0 ] && ok || bad "graph_ops exited $rc: $(cat "$tmp/go.err")"
    same "$tmp/go.out" "5 graphs; report in $out/index.html"
    # the parser's file of the first graph, numbered in the report's sequence
    same "$out/-_0_0_0/graph_ops_1.txt" "Operators of the graph of [0/0] (line 40)
     6  torch._C._nn.gelu
     6  torch._C._nn.linear
     1  torch.nn.functional.layer_norm"
    n=$(find "$out" -name 'graph_ops_*.txt' | wc -l)
    [ "$n" = 5 ] && ok || bad "$n graph_ops files, want 5"
    has "$out/index.html" 'href="-_0_0_0/graph_ops_1.txt"'
    has "$out/compile_directory.json" '"-_0_0_0/graph_ops_1.txt"'
    # the built-in files after it moved up by one number, as in the reference
    [ -e "$out/-_0_0_0/aotautograd_cache_hash_2.json" ] && ok || bad "no aotautograd_cache_hash_2.json: $(ls "$out/-_0_0_0")"

    "$dir/list_entries" "$demo" >"$tmp/le.out" 2>"$tmp/le.err"
    rc=$?
    [ $rc = 0 ] && ok || bad "list_entries exited $rc: $(cat "$tmp/le.err")"
    same "$tmp/le.err" "Stats { ok: 161 }"
    n=$(grep -cE '^ +[0-9]+  ' "$tmp/le.out")
    [ "$n" = 161 ] && ok || bad "list_entries listed $n entries, want 161"
    has "$tmp/le.out" "dynamo_output_graph: 5"
    has "$tmp/le.out" "chromium_event: 59"
    first=$(head -1 "$tmp/le.out" | tr -s ' ')
    [ "$first" = " 5 [0/0] chromium_event - 133" ] && ok || bad "first entry: '$first'"
    unset LD_LIBRARY_PATH
done

# built in place, as the README shows (make -C examples), they are not files for git to add
# (nor for make deb, which packs what git would add): examples/.gitignore names them
if git -C "$here/.." rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    for p in graph_ops list_entries; do
        if git -C "$here/.." check-ignore -q "examples/$p"; then ok; else bad "git status would show examples/$p once built (examples/.gitignore)"; fi
    done
    if git -C "$here/.." check-ignore -q examples/graph_ops.c; then bad "git ignores examples/graph_ops.c"; else ok; fi
fi

summary_line examples
