#!/usr/bin/env bash
# The reference tlparse 0.4.8's vLLM mode: when a log holds vLLM's entries (its compilation
# config, the piecewise split graph, vllm_piecewise_compile_start, the submodules' graph
# dumps), index.html is a vLLM compilation summary and the classic index is
# tlparse_index.html; vLLM's entries get a second, numbered file as the reference writes
# them. On tests/fixtures/vllm.log (scripts/make_vllm_trace.py) and on small logs written
# below: the file names, what the summary groups and links, escaping, a config the
# reference cannot read, several compile calls (tests/fixtures/vllm_calls.log; a config they
# share), and a log without vLLM entries (no summary).
# Usage: tests/vllm.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, new_tmp, ok, bad, run, has, hasnt, exists, absent, entry
bin=$(realpath "$1")
new_tmp
cd "$tmp" || exit 1

# ---- the fixture: the summary is index.html, the classic index beside it
run 0 "$here/fixtures/vllm.log" -o out --no-browser
exists out/tlparse_index.html
has out/tlparse_index.html '<h2>Stack trie</h2>'
has out/index.html '<title>vLLM Compilation Summary</title>'
has out/index.html '<a href="tlparse_index.html">View original tlparse output →</a>'
# every vLLM entry: the ordinary file, then vLLM's copy (the next number)
for f in vllm_compilation_config_1.json vllm_compilation_config_2.json \
    vllm_piecewise_split_graph_3.txt vllm_piecewise_split_graph_4.txt \
    vllm_submod_0_6.txt vllm_submod_0_7.txt vllm_piecewise_compile_start_5.json; do
    exists "out/-_0_0_0/$f"
done
# the config, as logged, escaped
has out/index.html '<tr><td><strong>Model</strong></td><td>facebook/opt-125m&lt;script&gt;alert(1)&lt;/script&gt;</td></tr>'
hasnt out/index.html '<script>alert(1)'
has out/index.html '<tr><td><strong>Dynamic Shapes Evaluate Guards</strong></td><td>false</td></tr>'
# dynamo's files before the first subgraph, the split graph (vLLM's copy, the last one)
has out/index.html '<li><a href="-_0_0_0/dynamo_output_graph_0.txt">dynamo_output_graph_0</a> </li>'
has out/index.html '<li><a href="-_0_0_0/vllm_piecewise_split_graph_4.txt">vllm_piecewise_split_graph</a></li>'
# grouped by range or size, in the order first seen; each subgraph with the files after it
tr -d '\n' <out/index.html >flat.html
has flat.html '<h3>range [1, 8192]</h3><details open><summary>Subgraphs (2)</summary><div class="vllm-subgraph"><h4>submod_0</h4>'
has flat.html '<h3>size 4</h3><details open><summary>Subgraphs (2)</summary><div class="vllm-subgraph"><h4>submod_0 <small>(CUDA graph capture size)</small></h4><details open><summary>Artifacts (4 files)</summary><ul><li><a href="-_0_0_0/inductor_post_grad_graph_12.txt">'
has flat.html '<h4>submod_2&lt;b&gt;</h4>'
has flat.html '<li><a href="-_0_0_0/fx_graph_cache_miss_10.json">fx_graph_cache_miss_10</a> ❌</li>'
# raw.jsonl names vLLM's copy as the entry's payload file, as the reference (the last wins)
has out/raw.jsonl '"payload_filename":"-_0_0_0/vllm_compilation_config_2.json"'

# ---- a config the reference's typed read refuses (a list where a string goes): no config
# table, yet the file; a config payload that is not JSON: a parser failure, no vLLM copy;
# a compile start without its fields: vLLM mode, no subgraph
{
    entry '{"artifact": {"name": "vllm_compilation_config", "encoding": "json"}, '"$CID"', "has_payload": "@MD5@"}' \
        '{"model": "m", "compile_sizes": [1, 2]}'
    entry '{"artifact": {"name": "vllm_compilation_config", "encoding": "string"}, '"$CID"', "has_payload": "@MD5@"}' \
        'not json'
    entry '{"artifact": {"name": "vllm_piecewise_compile_start", "encoding": "json"}, '"$CID"', "has_payload": "@MD5@"}' \
        '{"piecewise_index": 0}'
} >odd.log
run 0 odd.log -o odd --no-browser
has err.txt 'odd.log:3: Failed to format payload for vllm_compilation_config.json'
has err.txt 'Stats { ok: 3, fail_parser: 1 }'
exists odd/tlparse_index.html
hasnt odd/index.html 'Compilation Configuration'
hasnt odd/index.html '<div class="vllm-group">'
exists odd/-_0_0_0/vllm_compilation_config_1.json
exists odd/-_0_0_0/vllm_compilation_config_0.json
absent odd/-_0_0_0/vllm_compilation_config_3.json

# ---- several compile calls (tests/fixtures/vllm_calls.log): a section per call of vLLM's
# backend, the first open, labelled with its prefix (escaped); the second call's config
# differs (its prefix), so each shows its own; its vllm_compile_event marks a cache hit; its
# pieces, numbered from 0 again, are its own
run 0 "$here/fixtures/vllm_calls.log" -o calls --no-browser
tr -d '\n' <calls/index.html >calls.html
has calls.html '<details class="vllm-call" open><summary><h2>Compile Call 1</h2></summary><div class="vllm-call-body"><h2>Compilation Configuration</h2>'
has calls.html '<details class="vllm-call"><summary><h2>Compile Call 2: eagle_head&lt;i&gt; <span title="loaded from vLLM'"'"'s compile cache">✅</span></h2></summary><div class="vllm-call-body"><h2>Compilation Configuration</h2>'
hasnt calls.html 'eagle_head<i>'
hasnt calls.html 'Compilation Configuration (shared)'
[ "$(grep -c '<h2>Piecewise Split Graph</h2>' calls/index.html)" = 2 ] || bad "two calls: not two split graphs"
has calls.html '<li><a href="-_1_0_0/vllm_piecewise_split_graph_31.txt">vllm_piecewise_split_graph</a></li></ul><h2>Inductor Compilation</h2><div class="vllm-group"><h3>range [1, 8192]</h3><details open><summary>Subgraphs (1)</summary>'
# the second call's ordinary files before its first piece go where the reference puts them:
# to the first call's last subgraph (its config's vLLM copy to the call it starts)
has calls.html '<li><a href="-_1_0_0/vllm_compilation_config_28.json">vllm_compilation_config_28</a> </li></ul>'
hasnt calls.html 'vllm_compilation_config_29.json">'

# ---- two calls with the same config: shown once, above the calls; a piece before any config
# makes a call without one, which the first config completes
cfg='{"model": "m", "prefix": "p", "backend": "inductor"}'
start='{"piecewise_index": 0, "submod_name": "submod_0", "compile_range_start": 1, "compile_range_end": 8, "is_single_size": false, "is_cudagraph_capture_size": false}'
{
    entry '{"artifact": {"name": "vllm_piecewise_compile_start", "encoding": "json"}, '"$CID"', "has_payload": "@MD5@"}' "$start"
    entry '{"artifact": {"name": "vllm_compilation_config", "encoding": "json"}, '"$CID"', "has_payload": "@MD5@"}' "$cfg"
    entry '{"artifact": {"name": "vllm_compilation_config", "encoding": "json"}, '"$CID"', "has_payload": "@MD5@"}' "$cfg"
    entry '{"artifact": {"name": "vllm_piecewise_compile_start", "encoding": "json"}, '"$CID"', "has_payload": "@MD5@"}' "$start"
} >shared.log
run 0 shared.log -o shared --no-browser
tr -d '\n' <shared/index.html >shared.html
has shared.html '<h2>Compilation Configuration (shared)</h2><details open><summary><strong>Core Settings</strong></summary><table><tr><td><strong>Model</strong></td><td>m</td></tr>'
[ "$(grep -c '<h2>Compilation Configuration' shared/index.html)" = 1 ] || bad "a shared config: shown more than once"
[ "$(grep -c '<summary><h2>Compile Call' shared/index.html)" = 2 ] || bad "a shared config: not two calls"
has shared.html '<h2>Compile Call 1: p</h2></summary><div class="vllm-call-body"><h2>Inductor Compilation</h2><div class="vllm-group"><h3>range [1, 8]</h3>'

# ---- no vLLM entry: the classic index, no tlparse_index.html
run 0 "$here/fixtures/newer.log" -o plain --no-browser
absent plain/tlparse_index.html
has plain/index.html '<h2>Stack trie</h2>'

summary_line vllm
