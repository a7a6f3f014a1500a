#!/usr/bin/env python3
"""Write a hostile TORCH_TRACE log for the HTML-injection end-to-end test
(tests/e2e/test_injection.py): every field that can reach a page of the report
carries script-injection strings, each tagged with a unique marker.

    python3 tests/e2e/make_hostile_log.py              # the log on stdout
    python3 tests/e2e/make_hostile_log.py LOG [MANIFEST.json]
    python3 tests/e2e/make_hostile_log.py --term LOG [TEXTLOG]

--term writes the same log for the terminal test (tests/hostile_term.sh) instead: every
variant is a terminal escape (CSI, OSC, DCS, C1 in UTF-8 and as raw bytes, CR, BEL, ...),
and the log also holds the records the diagnosis prints (a recompile with its failing
guards, a graph break with its user frame, a recompile limit); TEXTLOG is the same for
TORCH_LOGS text. Nothing in it is ours but the markers, so any byte below 0x20 (but a
newline), DEL, or C1 control in what tlparse prints of it is a leak.

A marker is "ZQ" + a 3-character field tag + a variant letter (a-j; x-z for single
strings), e.g. ZQm04b is variant b (the <img onerror> string) in fail_reason. Marker
and hostile string are written together, marker first, so a leak seen in a page names
its field, and the escaped text of a correctly rendered page shows the marker.

The manifest (JSON) lists every field (tag -> description), the hostile variants,
and the expectations the test checks: for a page (a regex on the report-relative
path; the union of the matching pages is searched) the markers its visible text
must contain, and the strings that must appear there verbatim (escaped, so shown
exactly as logged, neither dropped nor double-escaped).

Deterministic; stdlib only; payload md5 checksums are valid unless a field is about
has_payload itself.
"""
import hashlib
import json
import re
import sys

TERM = "--term" in sys.argv[1:]

# The hostile strings. The required seven (a-g), two attribute breakouts (h, i) that
# fire without a click (autofocus + onfocus) or on hover, and a script behind NUL bytes
# (j), for a C implementation that might stop escaping at a NUL. A page shows a NUL
# as U+FFFD (or drops it): the test ignores both when it compares text.
VARIANTS = {
    "a": "<script>window.__pwned=1</script>",
    "b": "\"><img src=x onerror=\"window.__pwned=2\">",
    "c": "'><svg onload=window.__pwned=3>",
    "d": "javascript:window.__pwned=4",
    "e": "</pre><script>window.__pwned=5</script>",
    "f": "</textarea></title></style><script>window.__pwned=6</script>",
    "g": "<iframe srcdoc=\"<script>parent.__pwned=7</script>\">",
    "h": "\" onmouseover=\"window.__pwned=8\" autofocus onfocus=\"window.__pwned=8\" x=\"",
    "i": "' onmouseover='window.__pwned=9' autofocus onfocus='window.__pwned=9' x='",
    "j": "\u0000<script>window.__pwned=13</script>\u0000",
}
# --term: escapes a terminal obeys (alone, each would clear the screen, set the title, make
# a link, move the cursor, ...). "\udc9b" is the raw byte 0x9b, invalid UTF-8 (the C1 CSI of
# an 8-bit terminal): the log is written with surrogateescape.
TERM_VARIANTS = {
    "a": "\x1b[2J\x1b[H",  # CSI: clear the screen, cursor home
    "b": "\x1b]0;ZZtitle\x07",  # OSC: the window title, ended by BEL
    "c": "\x1b]8;;http://x\x1b\\ZZlink\x1b]8;;\x1b\\",  # OSC 8 hyperlink, ended by ST
    "d": "\rZZover\x1b[K",  # CR and erase: overwrites the line
    "e": "\x07\x08\x7f\x0b\x0c",  # BEL, BS, DEL, VT, FF
    "f": "\u009b31m\u009d0;t\u009c",  # C1 CSI, OSC, ST in UTF-8 (C2 9B, ...)
    "g": "\udc9b2J\udc9d0;t\x07",  # C1 CSI, OSC as raw bytes 0x9b 0x9d
    "h": "\x1bP1$r\x1b\\\x1b[6n",  # DCS, then a cursor position query
    "i": "\x1b[?1049h\x1b[8m",  # the alternate screen, hidden text
    "j": "\u0000\x1b[31m\u0000",  # behind NUL bytes
}
if TERM:
    VARIANTS = TERM_VARIANTS
# Variants with no '/', for file-name fields whose last path component is what shows.
NOSLASH = [k for k, v in VARIANTS.items() if "/" not in v]

FIELDS = {}  # tag -> description
EXPECT = []  # {"page": regex, "what": text, "markers": [...], "verbatim": [...]}


def marker(tag, k):
    return "ZQ%s%s" % (tag, k)


def field(tag, desc):
    assert len(tag) == 3 and tag not in FIELDS, tag
    FIELDS[tag] = desc
    return tag


def combo(tag, desc=None):
    """Every variant, each after its marker, space-separated."""
    if desc is not None:
        field(tag, desc)
    return " ".join(marker(tag, k) + v for k, v in VARIANTS.items())


def one(tag, k):
    return marker(tag, k) + VARIANTS[k]


def markers_of(tag, ks=None):
    return [marker(tag, k) for k in (ks or VARIANTS)]


def expect(page, what, markers, verbatim=()):
    EXPECT.append({"page": page, "what": what, "markers": list(markers),
                   "verbatim": list(verbatim)})


lines = []
clock = [0]


def emit(env, payload=None, raw_env=None, pathname="torch/_logging/structured.py", md5=True):
    clock[0] += 1
    s, us = divmod(clock[0] * 1000, 1000000)
    prefix = "V1121 10:%02d:%02d.%06d 4242 %s:%d] " % (
        s // 60, s % 60, us, pathname, 20 + clock[0])
    if payload is not None and env is not None and md5:
        env = dict(env, has_payload=hashlib.md5(payload.encode("utf-8", "surrogateescape")).hexdigest())
    text = raw_env if raw_env is not None else json.dumps(env)
    # json.dumps writes a raw byte (a lone surrogate) as \udcXX: put the byte back
    text = re.sub(r"\\udc([89a-f][0-9a-f])", lambda m: chr(0xdc00 + int(m.group(1), 16)), text)
    lines.append(prefix + text)
    if payload is not None:
        lines.extend("\t" + l for l in payload.split("\n"))


def cid(frame, fcid=0, attempt=0, **kw):
    d = {"frame_id": frame, "frame_compile_id": fcid, "attempt": attempt}
    d.update(kw)
    return d


def frame(fid, line, name, loc=None, **kw):
    f = {"filename": fid, "line": line, "name": name}
    if loc is not None:
        f["loc"] = loc
    f.update(kw)
    return f


IDX = r"^index\.html$"
# 300 KB of text that needs escaping, to cross the writer's 256 KiB flush boundary.
PAD = "".join("&<>\"'"[i % 5] + "pad%06d " % i for i in range(30000)) + "|"
M0 = r"^-_0_0_0/compilation_metrics_\d+\.html$"
FAIL = r"^failures_and_restarts\.html$"

# ---- string table and stack frames --------------------------------------------------
S01 = combo("s01", "str table: file name (dynamo_start stack of [0/0])")
S02 = "/data/users/x/fbsource/#link-tree/" + combo("s02", "str table: file name behind #link-tree/ (simplified)")
S03 = combo("s03", "str table: file name (top-level stack, unknown-stacks trie)")
S04 = combo("s04", "str table: file name of a frame in a specialization/guard stack")
emit({"str": [S01, 0]})
emit({"str": [S02, 1]})
emit({"str": [S03, 2]})
emit({"str": [S04, 3]})
emit({"str": ["/home/u/hostile/train.py", 4]})

U01 = combo("u01", "frame uninterned_filename")
U02 = combo("u02", "frame uninterned_filename that contains <eval_with_key>.N (rendered as a link)") + " <eval_with_key>.7"
N01 = combo("n01", "frame name")
N02 = combo("n02", "frame name of an <eval_with_key> frame")
L01 = combo("l01", "frame loc (source line)")
N03 = combo("n03", "frame name, second dynamo_start ([1/0]; the trie diverges)")
L03 = combo("l03", "frame loc, second dynamo_start")

common = [frame(4, 10, "<module>", "main()"), frame(0, 5, N01, L01)]
stack0 = common + [frame(1, 7, "forward", "return f(x)"),
                   frame(4, 8, "step", "y = g(x)", uninterned_filename=U01),
                   frame(4, 3, N02, uninterned_filename=U02)]
stack1 = common + [frame(4, 20, N03, L03)]
emit(dict(cid(0), dynamo_start={"stack": stack0}))
emit(dict(cid(1), dynamo_start={"stack": stack1}))
# The same kind of frame, its envelope spelling < > " ' & / only as JSON \u escapes.
X02 = combo("x02", "frame name/loc written with JSON \\u escapes (\\u003c for <, ...)")
esc_env = json.dumps(dict(cid(2), dynamo_start={"stack": common + [frame(4, 30, X02, X02)]}))
esc_env = esc_env.replace('\\"', "\\u0022")
for ch in "<>'&/":
    esc_env = esc_env.replace(ch, "\\u%04x" % ord(ch))
emit(None, raw_env=esc_env)
trie_markers = (markers_of("s01") + markers_of("s02") + markers_of("u01") + markers_of("u02")
                + markers_of("n01") + markers_of("n02") + markers_of("l01") + markers_of("n03")
                + markers_of("l03") + markers_of("x02"))
expect(IDX, "stack trie: file names, names, locs", trie_markers,
       [S01, U01, N01, L01, N02, N03, L03, X02])
expect(M0, "metrics page: the dynamo_start stack", markers_of("s01") + markers_of("n01")
       + markers_of("l01") + markers_of("u01") + markers_of("n02"), [N01, L01])

# ---- compile-id-adjacent fields ------------------------------------------------------
C01 = combo("c01", "frame_id given as a string (ill-typed compile id -> (unknown))")
emit({"frame_id": C01, "dynamo_output_graph": {}}, "graph of an unknown compile id")
emit({"frame_id": C01, "compilation_metrics": {"co_name": "f", "fail_type": one("c05", "b"),
                                               "fail_reason": one("c05", "a")}})
field("c05", "fail_type/fail_reason of a metrics entry with an ill-typed compile id")
expect(FAIL, "failures page: (unknown) compile id row", markers_of("c05", "ab"))
C02 = combo("c02", "compiled_autograd_id given as a string")
emit({"compiled_autograd_id": C02, "frame_id": 3, "compiled_autograd_graph": {}}, "ca graph")
C03 = combo("c03", "rank given as a string (decode failure)")
emit(dict(cid(0), rank=C03, dynamo_output_graph={}), "bad rank")
C04 = combo("c04", "attempt given as a string")
emit({"frame_id": 4, "frame_compile_id": 0, "attempt": C04, "dynamo_output_graph": {}}, "bad attempt")
field("c06", "has_payload (md5 mismatch; payloads/<has_payload>.txt)")
emit(dict(cid(0), describe_storage={"id": 1, "describer_id": 0, "size": 4},
          has_payload=one("c06", "a")), one("c06", "b"), md5=False)
emit(dict(cid(0), describe_storage={"id": 2, "describer_id": 0, "size": 4},
          has_payload=marker("c06", "x") + ".html\u0000"), one("c06", "c"), md5=False)
field("c07", "glog pathname")
for k in ("a", "b", "c", "g"):  # pathname cannot hold ':' (so no javascript: variant)
    if ":" not in VARIANTS[k]:
        emit(dict(cid(0), describe_storage={"id": 3, "describer_id": 0, "size": 4}),
             pathname=one("c07", k))

# ---- unknown fields ------------------------------------------------------------------
field("x01", "unknown top-level field name and value")
for k in VARIANTS:
    emit(dict(cid(0), **{one("x01", k): one("x01", k)}))

# ---- dynamo_guards --------------------------------------------------------------------
G01 = combo("g01", "dynamo_guards code")
G02 = combo("g02", "dynamo_guards code after 300 KB of padding (output buffer flushes)")
guards = [{"code": G01}] + [{"code": one("g01", k), "stack": [frame(0, 1, one("g01", k))]}
                            for k in VARIANTS] + [{"code": PAD + G02 + PAD}]
emit(dict(cid(0), dynamo_guards={}), json.dumps(guards))
expect(r"^-_0_0_0/dynamo_guards_\d+\.html$", "guards page: code", markers_of("g01") + markers_of("g02"),
       [G01, PAD + G02 + PAD] + [one("g01", k) for k in VARIANTS])

# ---- payload-file parsers with hostile names -----------------------------------------
A01 = combo("a01", "artifact name (string encoding)")
emit(dict(cid(0), artifact={"name": A01, "encoding": "string"}), combo("a03", "artifact payload (string, .txt)"))
A02 = combo("a02", "artifact name (json encoding)")
emit(dict(cid(0), artifact={"name": A02, "encoding": "json"}),
     json.dumps({combo("a04", "artifact payload (json) keys and values"): combo("a04")}))
field("a05", "artifact name ending .html + NUL (string encoding; must not make an .html file)")
emit(dict(cid(0), artifact={"name": marker("a05", "x") + ".html\u0000", "encoding": "string"}),
     combo("a05"))
field("a06", "artifact name ending .html + NUL (json encoding)")
emit(dict(cid(0), artifact={"name": marker("a06", "x") + ".html\u0000", "encoding": "json"}),
     json.dumps([combo("a06")]))
field("a09", "artifact/graph_dump/dump_file names ending .svg/.xhtml/.htm + NUL")
for ext in (".svg", ".xhtml", ".htm"):
    emit(dict(cid(0), artifact={"name": marker("a09", "x") + ext + "\u0000", "encoding": "string"}),
         "<svg xmlns='http://www.w3.org/2000/svg' onload='window.__pwned=12'/>")
    emit(dict(cid(0), graph_dump={"name": marker("a09", "y") + ext + "\u0000"}),
         "<svg xmlns='http://www.w3.org/2000/svg' onload='window.__pwned=12'/>")
    emit(dict(cid(0), dump_file={"name": marker("a09", "z") + ext + "\u0000"}),
         "<svg xmlns='http://www.w3.org/2000/svg' onload='window.__pwned=12'/>")
field("a07", "artifact name (unsupported encoding)")
emit(dict(cid(0), artifact={"name": combo("a07"), "encoding": one("a07", "b")}), "blob")
for k in NOSLASH:
    emit(dict(cid(0), artifact={"name": one("a08", k), "encoding": "string"}), "x")
field("a08", "artifact name, one variant each (no '/')")
D01 = combo("d01", "graph_dump name")
emit(dict(cid(0), graph_dump={"name": D01}), "graph dump")
field("d02", "graph_dump name ending .html + NUL")
emit(dict(cid(0), graph_dump={"name": marker("d02", "x") + ".html\u0000"}), combo("d02"))
O01 = combo("o01", "optimize_ddp_split_child name")
emit(dict(cid(0), optimize_ddp_split_child={"name": O01}), "child")
field("o02", "optimize_ddp_split_child name ending .html + NUL")
emit(dict(cid(0), optimize_ddp_split_child={"name": marker("o02", "x") + ".html\u0000"}), combo("o02"))
expect(IDX, "index listing: artifact / graph_dump / split child names",
       markers_of("a01") + markers_of("a02") + markers_of("a08", NOSLASH)
       + markers_of("d01") + markers_of("o01"))

# ---- inductor_output_code --------------------------------------------------------------
field("i01", "inductor_output_code filename (one variant each, no '/')")
for k in NOSLASH:
    emit(dict(cid(0), inductor_output_code={"filename": "/tmp/torchinductor/" + one("i01", k) + ".py"}),
         "x = 1\n")
I02 = combo("i02", "inductor_output_code filename, all variants (only the last component shows)")
emit(dict(cid(0), inductor_output_code={"filename": "/tmp/torchinductor/" + I02 + ".py"}), "y = 2\n")
expect(IDX, "index listing: inductor_output_code file stems", markers_of("i01", NOSLASH))
field("i03", "inductor_output_code payload (Python source)")
code = ["# " + combo("i03"),
        "import torch",
        "def call(args):",
        "    s = '" + one("i03", "e").replace("'", "\\'") + "'",
        "    t = \"" + one("i03", "a").replace('"', '\\"') + "\"",
        "    u = \"\"\"" + one("i03", "g") + "\"\"\"",
        "    return f'{s}" + one("i03", "f") + "'  # " + one("i03", "b"),
        "v = 0x1F + 1e-3  " + one("i03", "c"),
        "</pre><script>window.__pwned=5</script>",
        "@" + one("i04", "c"),
        "class " + one("i04", "b") + ":",
        "    x = rb'" + one("i04", "a") + "' + Rb\"\"\"" + one("i04", "g") + "\"\"\"",
        "    y = f\"{x!r:" + one("i04", "e") + "}\" if x else 1e" + one("i04", "f"),
        "    z = 0x" + one("i04", "a") + " \\",
        "        + 1_000j" + one("i04", "h") + " \u00e9" + one("i04", "i"),
        "    $`?" + combo("i04") + "\r",
        "    w = '" + one("i04", "j") + " unterminated",
        "    v = " + "'" * 3 + PAD + combo("i05") + "'" * 3,
        "    u = \"\"\"" + combo("i06") + " unterminated triple-quoted string at EOF",
        ""]
emit(dict(cid(0), inductor_output_code={"filename": "/tmp/torchinductor/ab/cabc123hostile.py"}),
     "\n".join(code))
field("i04", "inductor_output_code payload: decorators, class names, string prefixes, f-strings, numbers, odd chars")
field("i05", "inductor_output_code payload: after 300 KB in a triple-quoted string")
field("i06", "inductor_output_code payload: unterminated triple-quoted string at EOF")
expect(r"^-_0_0_0/inductor_output_code_cabc123hostile_\d+\.html$",
       "inductor_output_code page: the payload",
       markers_of("i03") + markers_of("i04") + markers_of("i05") + markers_of("i06"),
       ["# " + combo("i03"), combo("i04"), PAD + combo("i05"), combo("i06")])

# ---- dump_file ---------------------------------------------------------------------------
F01 = combo("f01", "dump_file name")
emit(dict(cid(0), dump_file={"name": F01}), "print('hello')\n")
field("f03", "dump_file name that contains <eval_with_key>.N")
emit(dict(cid(0), dump_file={"name": combo("f03") + "<eval_with_key>.7"}),
     "def forward(self, x):\n    return x\n")
F02 = combo("f02", "dump_file payload")
emit(dict(cid(0), dump_file={"name": "hostile_source.py"}),
     "\n".join(one("f02", k) for k in VARIANTS) + "\n" + F02 + "\n")
expect(r"^dump_file/hostile_source\.py\.html$", "dump_file page: the payload",
       markers_of("f02"), [F02] + [one("f02", k) for k in VARIANTS])
expect(IDX, "index listing: dump_file name", markers_of("f01"))

# ---- links ------------------------------------------------------------------------------
field("k01", "link name")
field("k02", "link url")
link_urls = [
    ("a", "javascript:window.__pwned=4//" + marker("k02", "a")),
    ("b", " JaVaScRiPt:window.__pwned=4//" + marker("k02", "b")),
    ("c", "java\tscript:window.__pwned=4//" + marker("k02", "c")),
    ("d", "\u0001javascript:window.__pwned=4//" + marker("k02", "d")),
    ("e", "\" onmouseover=\"window.__pwned=8\" autofocus onfocus=\"window.__pwned=8\" x=\"" + marker("k02", "e")),
    ("f", "' onmouseover='window.__pwned=9' autofocus onfocus='window.__pwned=9' x='" + marker("k02", "f")),
    ("g", "data:text/html,<script>window.__pwned=10</script>" + marker("k02", "g")),
    ("h", "vbscript:msgbox(" + marker("k02", "h") + ")"),
    ("i", "https://example.com/" + combo("k03", "link url path (http; escaped in the href)")),
]
field("k04", "link url: javascript: disguised with case, controls, whitespace, NUL")
for n, url in enumerate(["\u000bjavascript:", "\njavascript:", "javas\ncript:", "\u0000javascript:",
                         "JAVASCRIPT:", " \t\u000c javascript:", "javascript\t:", "j\ra\tv\na\tscript:",
                         "\u001fVbScRiPt:", "DATA:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xNDwvc2NyaXB0Pg==,"]):
    k = "abcdefghij"[n]
    emit(dict(cid(0), link={"name": marker("k04", k), "url": url + "window.__pwned=4//" + marker("k04", k)}))
for k, url in link_urls:
    emit(dict(cid(0), link={"name": one("k01", k), "url": url}))
emit(dict(cid(0), link={"name": combo("k01"), "url": "javascript:window.__pwned=4"}))
expect(IDX, "index listing: link names", markers_of("k01") + markers_of("k04", "abcdefghij"), [combo("k01")])

# ---- symbolic shapes ------------------------------------------------------------------------
Y01 = combo("y01", "symbolic_shape_specialization symbol")
Y03 = combo("y03", "symbolic_shape_specialization value")
field("y02", "symbolic_shape_specialization sources")
field("y04", "symbolic_shape_specialization reason (not shown)")
field("y05", "symbolic_shape_specialization user_stack frame name")
field("y06", "symbolic_shape_specialization stack frame name/loc")
emit(dict(cid(0), symbolic_shape_specialization={
    "symbol": Y01, "sources": [one("y02", k) for k in VARIANTS], "value": Y03,
    "reason": combo("y04"), "user_stack": [frame(3, 5, combo("y05"), "x")],
    "stack": [frame(3, 6, one("y06", "a"), combo("y06"))]}))
Y07 = combo("y07", "guard_added_fast expr")
field("y08", "guard_added_fast user_stack/stack frame name")
emit(dict(cid(0), guard_added_fast={"expr": Y07, "user_stack": [frame(3, 7, combo("y08"))],
                                    "stack": [frame(3, 8, one("y08", "g"))]}))
expect(M0, "metrics page: specializations and guards added fast",
       markers_of("y01") + markers_of("y02") + markers_of("y03") + markers_of("y05")
       + markers_of("y06") + markers_of("y07") + markers_of("y08") + markers_of("s04"),
       [Y01, Y03, Y07] + [one("y02", k) for k in VARIANTS])

# ---- backward metrics --------------------------------------------------------------------------
B01, B02 = combo("b01", "bwd_compilation_metrics fail_type"), combo("b02", "bwd_compilation_metrics fail_reason")
emit(dict(cid(0), bwd_compilation_metrics={"inductor_compile_time_s": 1, "code_gen_time_s": 0.5,
                                           "fail_type": B01, "fail_reason": B02}))
expect(r"^-_0_0_0/bwd_compilation_metrics_\d+\.html$", "bwd metrics page: failure",
       markers_of("b01") + markers_of("b02"), [B01, B02])
B03 = combo("b03", "aot_autograd_backward_compilation_metrics fail_type")
B04 = combo("b04", "aot_autograd_backward_compilation_metrics fail_reason")
emit(dict(cid(0), aot_autograd_backward_compilation_metrics={
    "start_time": 1.5, "elapsed_time": 2, "fail_type": B03, "fail_reason": B04}))
expect(r"^-_0_0_0/aot_autograd_backward_compilation_metrics_\d+\.html$",
       "aot bwd metrics page: failure", markers_of("b03") + markers_of("b04"), [B03, B04])

# ---- kernel stack traces (readable page) -----------------------------------------------------------
R01 = combo("r01", "kernel stack traces: key")
field("r02", "kernel stack traces: values")
emit(dict(cid(0), artifact={"name": "inductor_provenance_tracking_kernel_stack_traces",
                            "encoding": "json"}),
     json.dumps({R01: [one("r02", k) + "\\n  " + one("r02", k) for k in VARIANTS],
                 "triton_" + one("r01", "b"): [combo("r02")]}))
expect(r"^-_0_0_0/inductor_provenance_tracking_kernel_stack_traces_\d+_readable\.html$",
       "readable stack-trace page", markers_of("r01") + markers_of("r02"),
       [R01, combo("r02")])

# ---- provenance inputs (tlparse -i) ------------------------------------------------------------------
P01 = combo("p01", "pre-grad graph artifact text (provenance page)")
P02 = combo("p02", "post-grad graph artifact text (provenance page)")
field("p03", "node-mapping kernel and node names")
emit(dict(cid(0), artifact={"name": "before_pre_grad_graph", "encoding": "string"}),
     "    relu = torch.relu(x)  " + P01 + "\n" + P01)
emit(dict(cid(0), artifact={"name": "after_post_grad_graph", "encoding": "string"}),
     "    relu_1: f32 = torch.ops.aten.relu.default(x)  " + P02 + "\n" + P02)
emit(dict(cid(0), artifact={"name": "inductor_provenance_tracking_node_mappings", "encoding": "json"}),
     json.dumps({"preToPost": {"relu": ["relu_1", one("p03", "a")]},
                 "postToPre": {"relu_1": ["relu"]},
                 "cppCodeToPost": {one("p03", "b"): ["relu_1"], "relu": ["relu_1"]},
                 "postToCppCode": {"relu_1": [one("p03", "c"), "relu"]}}))
expect(r"^provenance_tracking_-_0_0_0\.html$", "provenance page: graph texts",
       markers_of("p01") + markers_of("p02"), [P01, P02])

# ---- export records (tlparse -e, into OUT/export) -------------------------------------------------------
V01 = combo("v01", "guard_added (eval) expr")
V02 = combo("v02", "guard_added frame_locals value")
V03 = combo("v03", "expression_created result / method / arguments")
V04 = combo("v04", "missing_fake_kernel op")
V05 = combo("v05", "mismatched_fake_kernel reason")
V06 = combo("v06", "propagate_real_tensors_provenance expr / result")
V07 = combo("v07", "create_unbacked_symbol symbol")
emit(dict(cid(0), create_unbacked_symbol={"symbol": V07, "node_id": 7, "vr": "[0, 9]",
                                          "user_stack": [frame(3, 9, "f")], "stack": []}))
emit(dict(cid(0), expression_created={"method": V03, "result": V03, "result_id": 8,
                                      "arguments": [V03, "1"], "argument_ids": [7],
                                      "user_stack": [frame(3, 9, "f")], "stack": []}))
emit(dict(cid(0), guard_added={"expr": V01, "prefix": "eval", "expr_node_id": 8,
                               "user_stack": [frame(3, 9, "f")], "stack": [],
                               "frame_locals": {"locals": {"x": V02, V02: "v"},
                                                "symbols": {"s0": V02}}}))
emit(dict(cid(0), propagate_real_tensors_provenance={"expr": V06, "result": V06, "expr_node_id": 8,
                                                     "user_stack": [], "stack": []}))
emit(dict(cid(0), missing_fake_kernel={"op": V04, "reason": "r"}))
emit(dict(cid(0), mismatched_fake_kernel={"op": V04, "reason": V05}))
EXP = r"^export/index\.html$"
GUARD = r"^export/-_0_0_0/symbolic_guard_information_\d+\.html$"
expect(EXP, "export index: the problems", markers_of("v01") + markers_of("v04") + markers_of("v05")
       + markers_of("v06"), [V01, V04, V05, V06])
expect(GUARD, "symbolic-guard pages: expression, locals, tree",
       markers_of("v01") + markers_of("v02") + markers_of("v03") + markers_of("v06") + markers_of("v07"),
       [V01, V03, V06, V07])

# ---- chromium events ----------------------------------------------------------------------------------
E01 = combo("e01", "chromium_event payload (name, cat, args)")
emit(dict(cid(0), chromium_event={}), json.dumps(
    {"name": E01, "cat": E01, "ph": "i", "ts": 1, "pid": 0, "tid": 0, "s": "p",
     "args": {E01: E01}}))

# ---- top-level stack: the unknown-stacks trie ----------------------------------------------------------
T01 = combo("t01", "top-level stack (unknown stacks): frame name and loc")
emit({"stack": [frame(2, 1, T01, T01), frame(2, 2, "leaf", uninterned_filename=combo("t02", "top-level stack: uninterned_filename"))],
      "describe_storage": {"id": 9, "describer_id": 0, "size": 4}})
expect(IDX, "index: unknown-stacks trie", markers_of("t01") + markers_of("s03") + markers_of("t02"),
       [T01])

# ---- compilation_metrics -----------------------------------------------------------------------------
M = {
    "co_name": combo("m01", "compilation_metrics co_name"),
    "co_filename": combo("m02", "compilation_metrics co_filename"),
    "co_firstlineno": 5,
    "fail_type": combo("m03", "compilation_metrics fail_type"),
    "fail_reason": combo("m04", "compilation_metrics fail_reason"),
    "fail_user_frame_filename": combo("m05", "compilation_metrics fail_user_frame_filename"),
    "fail_user_frame_lineno": 7,
    "restart_reasons": [combo("m06", "compilation_metrics restart_reasons")] + [one("m06", k) for k in VARIANTS],
    "non_compliant_ops": [combo("m07", "compilation_metrics non_compliant_ops")] + [one("m07", k) for k in VARIANTS],
    "compliant_custom_ops": [combo("m08", "compilation_metrics compliant_custom_ops")] + [one("m08", k) for k in VARIANTS],
    "graph_op_count": 3, "graph_node_count": 4, "graph_input_count": 1, "guard_count": 2,
    "shape_env_guard_count": 0, "cache_size": 0, "accumulated_cache_size": 0,
    "entire_frame_compile_time_s": 1.5, "backend_compile_time_s": 0.5,
    "inductor_compile_time_s": 0.25, "code_gen_time_s": 0.125, "dynamo_time_before_restart_s": 0.0,
    combo("m09", "compilation_metrics unknown member"): combo("m09"),
}
emit(dict(cid(0), compilation_metrics=M))
expect(M0, "metrics page: every metrics field",
       markers_of("m01") + markers_of("m02") + markers_of("m03") + markers_of("m04")
       + markers_of("m05") + markers_of("m06") + markers_of("m07") + markers_of("m08"),
       [M["co_name"], M["co_filename"], M["fail_type"], M["fail_reason"], M["fail_user_frame_filename"],
        M["restart_reasons"][0], M["non_compliant_ops"][0], M["compliant_custom_ops"][0]]
       + [one("m06", k) for k in VARIANTS])
expect(FAIL, "failures page: [0/0] restarts and failure",
       markers_of("m03") + markers_of("m04") + markers_of("m05") + markers_of("m06"),
       [M["fail_type"], M["fail_reason"], M["fail_user_frame_filename"], M["restart_reasons"][0]]
       + [one("m06", k) for k in VARIANTS])
# [1/0]: restarts only (status break), and the failures-page link of a second compile id.
emit(dict(cid(1), compilation_metrics={"co_name": "g", "restart_reasons": [combo("m10", "restart_reasons of [1/0]")],
                                       "graph_op_count": 1}))
expect(FAIL, "failures page: [1/0] restart", markers_of("m10"), [combo("m10")])
expect(r"^-_1_0_0/compilation_metrics_\d+\.html$", "metrics page of [1/0]", markers_of("m10") + markers_of("n03"))

expect(M0, "metrics page: a member it does not know, under Other Metrics", markers_of("m09"),
       [combo("m09")])

# ---- what the reference 0.4.8 added: runtime metrics pages, subgraph names ---------------------
R = {"compile_id": "0/0", "duration_us": 5,
     combo("u91", "compilation_metrics_runtime: a member (name and value)"): combo("u91")}
emit(dict(cid(0, attempt=None), compilation_metrics_runtime=R))
expect(r"^-_0_0_0/compilation_metrics_runtime_1\.html$", "runtime metrics page: its members",
       markers_of("u91"), [combo("u91")])
emit(dict(cid(0), artifact={"name": "sg_entry", "encoding": "string"},
          subgraph_name=combo("u92", "subgraph_name of an entry")), "x")
expect(IDX, "index listing: the Subgraph Name header", markers_of("u92"), [combo("u92")])

# ---- the recompile forecast: two cache entries of frame 9 whose guards differ ----------------
# A guard on the same source with another value (changed), one added and one removed: the
# Diagnosis section's table per entry shows each, escaped.
if not TERM:
    Q1 = combo("q01", "guard tree: the source of a guard of two entries")
    Q2 = combo("q02", "guard tree: its value in the first entry")
    Q3 = combo("q03", "guard tree: its value in the second entry")
    Q4 = combo("q04", "guard tree: a guard of the first entry only")
    Q5 = combo("q05", "guard tree: a guard of the second entry only")
    for k, (value, only) in enumerate(((Q2, Q4), (Q3, Q5))):
        tree = ("\nTREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                "| +- EQUALS_MATCH: L['%s'] == %s  # f(x)  # m.py:3 in f\n"
                "| +- LAMBDA_GUARD: %s\n" % (Q1, value, only))
        emit(dict(cid(9, k), dynamo_cpp_guards_str={}), tree)
    expect(IDX, "diagnosis: the guards that differ between frame 9's entries",
           markers_of("q01") + markers_of("q02") + markers_of("q03") + markers_of("q04")
           + markers_of("q05"))


# ---- --term: what the diagnosis prints --------------------------------------------------------
# A recompile with its failing guards, a graph break with its user frame and code, a recompile
# limit with its last reason: the findings whose text --summary, --watch and the ranks' summary
# quote (the fields above give failures, restarts, specializations and export problems).
if TERM:
    H1 = combo("h01", "recompile: function name (dynamo_start of [5/1], metrics co_name)")
    H2 = combo("h02", "recompile: file name (co_filename)")
    # (not variant g: a JSON payload writes its raw bytes as \udc9b, a lone surrogate that no
    # JSON reader takes, and the whole list would be dropped)
    field("h03", "recompile_reasons artifact: a failing guard")
    H3 = " ".join(one("h03", k) for k in VARIANTS if k != "g")
    H4 = combo("h04", "dynamo_graph_break_reason: the reason")
    H5 = combo("h05", "dynamo_graph_break_reason: user frame file, function, code")
    H6 = combo("h06", "metrics of a frame stopped by the recompile limit: its fail_reason")
    for n in range(3):
        emit(dict(cid(5, n), dynamo_start={"stack": [frame(4, 3, H1, "y = f(x)")]}))
        if n:
            emit(dict(cid(5, n), artifact={"name": "recompile_reasons", "encoding": "json"}),
                 json.dumps(["5/%d: %s" % (n - 1, H3), "5/0: L['x'] == " + H3]))
        emit(dict(cid(5, n), compilation_metrics={
            "co_name": H1, "co_filename": H2, "co_firstlineno": 3, "entire_frame_compile_time_s": 0.5,
            "dynamo_config": '{"recompile_limit": 2}',
            "fail_type": "RecompileLimitExceeded" if n == 2 else None,
            "fail_reason": ("recompile_limit reached: " + H6) if n == 2 else None}))
    emit(dict(cid(6), dynamo_start={"stack": [frame(4, 9, H5, H5)]}))
    emit(dict(cid(6), artifact={"name": "dynamo_graph_break_reason", "encoding": "string"}),
         "Graph break in user code at /w/" + H5 + ".py:9\nReason: Unsupported: " + H4
         + "\n  continued " + H4 + "\nUser code traceback:\n  File \"/w/" + H5 + ".py\", line 9, in "
         + H5 + "\n    " + H5 + "\n")
    emit(dict(cid(6), compilation_metrics={"co_name": H5, "co_filename": H5, "co_firstlineno": 9,
                                           "restart_reasons": [H4]}))

# ---- --term: the same in TORCH_LOGS text ------------------------------------------------------
# One string per line of text (the text has lines, so no CR or newline in it: variant d
# without its CR).
T = " ".join(marker("txt", k) + v.replace("\r", "") for k, v in VARIANTS.items())
G = "V1120 14:09:%02d.149000 1 torch/_dynamo/guards.py:2997] "
text_lines = [
    G % 1 + "[0/1] [__recompiles] Recompiling function " + T + " in /w/" + T + ".py:3",
    G % 1 + "[0/1] [__recompiles]     triggered by the following guard failure(s):",
    G % 1 + "[0/1] [__recompiles]     - 0/0: " + T,
    G % 2 + "[1/0] [__graph_breaks] Graph break in user code at /w/" + T + ".py:9",
    G % 2 + "[1/0] [__graph_breaks] Graph Break Reason: " + T,
    G % 2 + "[1/0] [__graph_breaks] User code traceback:",
    G % 2 + "[1/0] [__graph_breaks]   File \"/w/" + T + ".py\", line 9, in " + T,
    G % 2 + "[1/0] [__graph_breaks]     " + T,
    G % 3 + "[2/0] create_symbol s0 = 3 for L['" + T + "'].size()[0] [2, int_oo] at /w/" + T
    + ".py:5 in " + T + " (_dynamo/variables/builder.py:1 in f)",
    G % 3 + "[2/0] eval Eq(s0, 5) [guard added] " + T + "  # /w/" + T + ".py:7 in " + T
    + " (_dynamo/variables/tensor.py:1 in f)",
    G % 4 + "[3/0] torch._dynamo hit config.recompile_limit (8)",
    G % 4 + "[3/0]    function: '" + T + "' (/w/" + T + ".py:3)",
    G % 4 + "[3/0]    last reason: 3/0: " + T,
    "W1120 14:09:05.000000 1 torch/_dynamo/convert_frame.py:1233] WON'T CONVERT " + T + " /w/" + T
    + ".py line 40 ",
    "W1120 14:09:05.000000 1 torch/_dynamo/convert_frame.py:1233] due to: ",
    "W1120 14:09:05.000000 1 torch/_dynamo/convert_frame.py:1233] Traceback (most recent call last):",
    "W1120 14:09:05.000000 1 torch/_dynamo/convert_frame.py:1233]   File \"/w/" + T + ".py\", line 41, in "
    + T,
    "W1120 14:09:05.000000 1 torch/_dynamo/convert_frame.py:1233]     " + T,
    "W1120 14:09:05.000000 1 torch/_dynamo/convert_frame.py:1233] torch._dynamo.exc.Unsupported: " + T,
    "Restarting analysis due to " + T,
    T,
]

assert all(FIELDS[e] for e in FIELDS)


def main(argv):
    argv = [a for a in argv if a != "--term"]
    text = "\n".join(lines) + "\n"
    if len(argv) < 2:
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
        return 0
    with open(argv[1], "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        f.write(text)
    if len(argv) > 2 and TERM:
        with open(argv[2], "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
            f.write("\n".join(text_lines) + "\n")
    elif len(argv) > 2:
        manifest = {"variants": VARIANTS, "fields": FIELDS, "expect": EXPECT,
                    "custom_header": '<b id="custom-hdr">ok</b>',
                    "marker_regex": "ZQ[a-z][0-9]{2}[a-z]"}
        with open(argv[2], "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1, ensure_ascii=False)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
