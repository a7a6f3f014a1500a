#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`--redact`, attacked: tests/fixtures/canary.log plants a unique canary (cnry0001, ...,
and decimal constants 0.58203749NN) in every field of a TORCH_TRACE log that can hold the
user's code or data; tests/fixtures/canary.json says where each one is (both written by
scripts/make_canary_trace.py). This checks:

1. proof that the fixture is worth something: the plain (un-redacted) report shows every
   canary that is not marked dormant somewhere other than raw.log / raw.jsonl (in at least
   one of the modes below), and the leak scan finds them all in a plain bundle;
2. `--redact --bundle r.zip` on canary.log, in the default mode and with -p, -i and -e: no
   canary anywhere in the archive (file contents and file names; case-insensitive, also
   HTML-escaped, percent-encoded, JSON-escaped or split by tags), each leak printed with its
   file, the field it was planted in and the text around it; raw.log and raw.jsonl left out;
   index.html says it was redacted and names --redact; and what a compiler engineer needs is
   still there: the file name, functions and their lines, compile ids, statuses, failure types,
   op names, shapes, node counts, metrics, guard structure, and h_xxxxxxxx hashes where
   things were replaced;
3. `--redact=paths`: the same, and the user's file names are gone (hashed) while the
   functions and line numbers stay;
4. demo.log and edge.log with --redact: exit 0, no raw.log / raw.jsonl, the notice, and no
   source line (`loc`) of a user frame of the log in the bundle.

    redact_check.py TLPARSE [--proof-only | --simulate-plain]
--proof-only runs part 1 alone (it needs no --redact); --simulate-plain runs parts 2-4
without --redact, to see the checks fail on a plain report.
"""
import base64
import gzip
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
CANARY_LOG = os.path.join(FIX, "canary.log")
CANARY_JSON = os.path.join(FIX, "canary.json")
MODES = [("default", []), ("plain-text", ["-p"]), ("provenance", ["-i"]), ("export", ["-e"])]
RAW_FILES = ("raw.log", "raw.jsonl")
HASH = re.compile(r"h_[0-9a-f]{8}")

failures = []
SIMULATE_PLAIN = False


def fail(what):
    failures.append(what)
    print("FAIL:", what)


def run(tl, args, cwd):
    p = subprocess.run([tl] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---- reading a bundle ---------------------------------------------------------------------

def read_zip(path):
    """{name: bytes} of every file in the archive (python's zipfile, CRCs checked), named as in
    the report: without the archive's one top folder (r.zip holds r/...)."""
    z = zipfile.ZipFile(path)
    bad = z.testzip()
    if bad:
        fail("%s: bad CRC in %s" % (path, bad))
    top = os.path.basename(path)[:-len(".zip")] + "/"
    out = {}
    for i in z.infolist():
        if i.is_dir():
            continue
        if not i.filename.startswith(top):
            fail("%s: %s is not in the archive's folder %s" % (path, i.filename, top))
            continue
        out[i.filename[len(top):]] = z.read(i)
    return out


BUNDLE_FILE = re.compile(r'<script type="application/x-tlparse-file" data-path="([^"]*)" data-size="\d+">'
                         r'([A-Za-z0-9+/=\s]*)</script>')


def read_html_bundle(path):
    """{name: bytes} of a single-page bundle (--bundle FILE.html): each file is embedded
    gzipped and base64-encoded in a <script type="application/x-tlparse-file"> block; the
    page itself is returned too, as "(bundle page)", with the blocks taken out."""
    with open(path, encoding="utf-8", errors="replace") as f:
        page = f.read()
    out = {}
    for name, body in BUNDLE_FILE.findall(page):
        name = html.unescape(name)
        try:
            out[name] = gzip.decompress(base64.b64decode(body.strip()))
        except (ValueError, OSError) as e:
            fail("%s: cannot decode the embedded %s (%s)" % (path, name, e))
    out["(bundle page)"] = BUNDLE_FILE.sub("", page).encode("utf-8")
    if len(out) < 5:
        fail("%s: only %d files found embedded in the page" % (path, len(out) - 1))
    return out


def read_folder(root):
    out = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


U_ESC = re.compile(r"\\u([0-9a-fA-F]{4})")
X_ESC = re.compile(r"\\x([0-9a-fA-F]{2})")
TAG = re.compile(r"<[^>]*>")


def views(raw):
    """The text of a file or name in every form a canary could hide in, lowercased:
    as is, HTML-unescaped, percent-decoded, JSON/Python-unescaped, tags stripped."""
    t = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    out = [("raw", t)]
    h = html.unescape(t)
    out.append(("html-unescaped", h))
    out.append(("percent-decoded", urllib.parse.unquote(t)))
    out.append(("percent-decoded html-unescaped", urllib.parse.unquote(h)))
    j = X_ESC.sub(lambda m: chr(int(m.group(1), 16)), U_ESC.sub(lambda m: chr(int(m.group(1), 16)), t))
    j = j.replace("\\/", "/")
    out.append(("json-unescaped", j))
    out.append(("json-unescaped html-unescaped", html.unescape(j)))
    out.append(("tags stripped", html.unescape(TAG.sub("", t))))
    return [(k, v.lower()) for k, v in out]


def context(text, i, n, width=70):
    a, b = max(0, i - width), min(len(text), i + n + width)
    return text[a:b].replace("\n", "\\n").replace("\t", "\\t")


def scan(files, needles):
    """[(needle, file, where ('name' or a view), context)] for every needle found."""
    hits = []
    for name, data in files.items():
        for where, vs in (("file name", views(name)), ("content", views(data))):
            for needle in needles:
                nl = needle.lower()
                for vk, v in vs:
                    i = v.find(nl)
                    if i >= 0:
                        hits.append((needle, name, "%s (%s)" % (where, vk), context(v, i, len(nl))))
                        break
    return hits


# ---- the fixture ----------------------------------------------------------------------------

def load_fixture():
    with open(CANARY_JSON, encoding="utf-8") as f:
        doc = json.load(f)
    with open(CANARY_LOG, encoding="utf-8") as f:
        text = f.read()
    # some canaries are written escaped (\u0063nry..., %63nry..., non-ASCII as \uXXXX)
    log = U_ESC.sub(lambda m: chr(int(m.group(1), 16)), text) + urllib.parse.unquote(text)
    for it in doc["canaries"]:
        if it["canary"] not in log:
            fail("canary.json lists %s, which canary.log does not hold: regenerate both with "
                 "scripts/make_canary_trace.py" % it["canary"])
    return doc


def report_leaks(label, hits, by_token):
    for tok, name, where, ctx in hits:
        it = by_token[tok]
        if it.get("ambiguous"):
            print("QUESTION: %s: %s (planted in %s; %s: %s) is kept in %s [%s]: ...%s..." % (
                label, tok, it["field"], it["form"], it["note"], name, where, ctx))
            continue
        fail("%s: LEAK %s (planted in %s; %s%s) in %s [%s]: ...%s..." % (
            label, tok, it["field"], it["form"], "; dormant" if it.get("dormant") else "", name, where, ctx))


# ---- 1. proof: the plain report carries the canaries ----------------------------------------

def proof(tl, tmp, doc):
    by_token = {it["canary"]: it for it in doc["canaries"]}
    seen = {}
    for mode, flags in MODES:
        zp = os.path.join(tmp, "plain-%s.zip" % mode)
        rc, _, err = run(tl, ["--no-browser", CANARY_LOG, "--bundle", zp] + flags, tmp)
        if rc != 0:
            fail("plain %s report: exit %d: %s" % (mode, rc, err.strip()[-400:]))
            continue
        files = {n: b for n, b in read_zip(zp).items() if n not in RAW_FILES}
        for tok, name, where, _ in scan(files, list(by_token)):
            seen.setdefault(tok, []).append("%s:%s" % (mode, name))
    live = [t for t, it in by_token.items() if not it.get("dormant")]
    missing = [t for t in live if t not in seen]
    for t in missing:
        fail("proof: the plain report never shows %s (%s): a useless canary, move it where the report "
             "carries it or mark it dormant" % (t, by_token[t]["field"]))
    woke = [t for t, it in by_token.items() if it.get("dormant") and t in seen]
    for t in woke:
        print("note: dormant canary %s (%s) is now shown by the plain report: %s" % (
            t, by_token[t]["field"], ", ".join(seen[t][:3])))
    print("proof: the plain report shows %d of %d live canaries (outside raw.log/raw.jsonl), the leak scan "
          "finds them; %d dormant canaries (in fields only raw.log/raw.jsonl carry)" % (
              len(live) - len(missing), len(live), len(by_token) - len(live)))
    return not missing


# ---- 2, 3. the redacted canary report --------------------------------------------------------

def has_redact(tl):
    rc, out, err = run(tl, ["--help"], None)
    return "--redact" in out + err


def check_notice_and_raw(label, files):
    for r in RAW_FILES:
        for n in files:
            if n == r or n.endswith("/" + r):
                fail("%s: %s is in the redacted bundle" % (label, n))
    idx = files.get("index.html")
    if idx is None:
        fail("%s: no index.html in the bundle" % label)
        return
    t = idx.decode("utf-8", "replace")
    if "redacted" not in t.lower():
        fail("%s: index.html does not say the report was redacted" % label)
    if "--redact" not in html.unescape(t):
        fail("%s: index.html does not name --redact" % label)
    # payloads/<md5>.txt is named by the md5 of what it holds: the log's md5 is of the model's
    # payload and would confirm a guessed one
    for n, b in files.items():
        m = re.search(r"(^|/)payloads/([0-9a-f]{32})\.txt$", n)
        if m and hashlib.md5(b).hexdigest() != m.group(2):
            fail("%s: %s is not named by the md5 of its redacted bytes" % (label, n))


def find_any(files, pattern):
    rx = re.compile(pattern)
    for n, b in files.items():
        t = html.unescape(b.decode("utf-8", "replace"))
        if rx.search(t):
            return n
    return None


def check_structure(label, files, st, paths):
    def need(pattern, what):
        if find_any(files, pattern) is None:
            fail("%s: %s is gone from the redacted report (no match for %s)" % (label, what, pattern))

    if paths:
        # the whole name goes: no folder of it may be left either ("/h_1/user/h_2.py")
        parts = ["/%s/" % c for c in os.path.dirname(st["user_file"]).split("/") if c]
        for gone in st["user_files"] + [os.path.dirname(st["user_file"]) + "/", os.path.basename(st["user_file"])] + parts:
            hits = scan(files, [gone])
            for _, name, where, ctx in hits[:5]:
                fail("%s: the user's file name %r is still there with --redact=paths: %s [%s]: ...%s..." % (
                    label, gone, name, where, ctx))
    else:
        need(re.escape(st["user_file"]), "the user's file name")
        # and nowhere hashed: a "file:line" whose file is a hash means a place lost its file name
        rx = re.compile(r"(?:/?h_[0-9a-f]{8})+(?:\.h_[0-9a-f]{8}|\.py):\d+")
        for n, b in files.items():
            m = rx.search(html.unescape(b.decode("utf-8", "replace")))
            if m:
                t = html.unescape(b.decode("utf-8", "replace"))
                fail("%s: a file name is hashed without --redact=paths in %s: ...%s..." % (
                    label, n, context(t, m.start(), len(m.group(0)), 50)))
    for fn in st["functions"]:
        need(r"\b%s\b" % re.escape(fn), "function name %s" % fn)
    for fr in st["frames"]:
        need(re.escape(fr), "the frame %r (file:line in function)" % fr.strip(":"))
    for c in st["compile_ids"]:
        need(re.escape(c), "compile id %s" % c)
    for s in st["statuses"]:
        need(re.escape(s), "status %s" % s)
    for ft in st["fail_types"]:
        need(r"\b%s\b" % re.escape(ft), "failure type %s" % ft)
    for op in st["ops"]:
        need(re.escape(op), "op name %s" % op)
    for sh in st["shapes"]:
        need(re.escape(sh), "shape %s" % sh)
    for g in st["guard_structure"]:
        need(re.escape(g), "guard structure %s" % g)
    for nc in st["node_counts"]:
        need(r"(Graph Nodes|graph_node_count|\"nodes\")\D{0,12}\b%d\b" % nc, "node count %d" % nc)
    for m in st["metric_numbers"]:
        need(r"(?<![\d.])%s(?!\d)" % re.escape(m), "metric %s" % m)
    if find_any(files, HASH.pattern) is None:
        fail("%s: no h_xxxxxxxx hash anywhere: things were deleted, not replaced" % label)
    if not paths:
        for f in st["files"]:
            if not any(n == f or (f.endswith("_") and n.startswith(f)) for n in files):
                fail("%s: no %s%s in the redacted bundle (the plain report has it)" % (label, f, "*" if f.endswith("_") else ""))


def check_salted(label, files, tokens):
    """The hashes must not be a plain digest of the text (h_ + its md5, sha1, sha256...):
    anyone could then confirm a guessed name. Checked for every canary's text."""
    digests = {}
    for tok in tokens:
        for alg in ("md5", "sha1", "sha256", "sha512", "blake2b", "blake2s", "sha3_256"):
            for form in (tok, tok.lower()):
                d = hashlib.new(alg, form.encode("utf-8")).hexdigest()
                digests["h_" + d[:8]] = (tok, alg)
                digests["h_" + d[-8:]] = (tok, alg + " (last 8)")
    for name, data in files.items():
        for h in set(HASH.findall(data.decode("utf-8", "replace") + " " + name)):
            if h in digests:
                tok, alg = digests[h]
                fail("%s: %s in %s is the unsalted %s of %r: names can be confirmed by guessing" % (
                    label, h, name, alg, tok))


def redacted_canary(tl, tmp, doc):
    by_token = {it["canary"]: it for it in doc["canaries"]}
    st = doc["structure"]
    runs = [(mode, ["--redact"] + flags, False) for mode, flags in MODES]
    runs.append(("paths", ["--redact=paths"], True))
    if SIMULATE_PLAIN:  # the checks against an un-redacted report: they must fail
        runs = [(m, [f for f in fl if not f.startswith("--redact")], p) for m, fl, p in runs]
    for mode, flags, paths in runs:
        label = "canary.log %s" % " ".join(flags)
        zp = os.path.join(tmp, "red-%s.zip" % mode)
        rc, out, err = run(tl, ["--no-browser", CANARY_LOG, "--bundle", zp] + flags, tmp)
        if rc != 0:
            fail("%s: exit %d: %s" % (label, rc, err.strip()[-400:]))
            continue
        if not os.path.isfile(zp):
            fail("%s: no bundle written" % label)
            continue
        files = read_zip(zp)
        leaks = scan(files, list(by_token))
        report_leaks(label, leaks, by_token)
        # the report's stderr and stdout are not the bundle, but say it if they repeat a canary
        for tok, _, _, ctx in scan({"(stderr+stdout)": out + err}, list(by_token)):
            print("note: %s: %s (%s) is printed on the terminal: ...%s..." % (label, tok, by_token[tok]["field"], ctx))
        check_notice_and_raw(label, files)
        if mode in ("default", "paths"):
            check_structure(label, files, st, paths)
            check_salted(label, files, list(by_token))
        if mode == "export":
            for e in st["export"]:
                if find_any(files, re.escape(e)) is None:
                    fail("%s: %r is gone from the redacted export report" % (label, e))
        print("%s: %d files, %d leaks" % (label, len(files), sum(1 for h in leaks if not by_token[h[0]].get("ambiguous"))))


def redacted_elsewhere(tl, tmp, doc):
    """The other ways a redacted report leaves: the single-page bundle, --json and --summary
    on the terminal, a multi-rank report."""
    by_token = {it["canary"]: it for it in doc["canaries"]}
    toks = list(by_token)
    red = [] if SIMULATE_PLAIN else ["--redact"]
    # --bundle FILE.html
    hp = os.path.join(tmp, "red.html")
    label = "canary.log %s --bundle r.html" % " ".join(red)
    rc, _, err = run(tl, ["--no-browser", CANARY_LOG, "--bundle", hp] + red, tmp)
    if rc != 0:
        fail("%s: exit %d: %s" % (label, rc, err.strip()[-400:]))
    elif os.path.isfile(hp):
        files = read_html_bundle(hp)
        leaks = scan(files, toks)
        report_leaks(label, leaks, by_token)
        check_notice_and_raw(label, files)
        print("%s: %d files, %d leaks" % (label, len(files), sum(1 for h in leaks if not by_token[h[0]].get("ambiguous"))))
    # --json, --summary: what is printed is shared as well
    for flag in ("--json", "--summary"):
        label = "canary.log %s %s" % (" ".join(red), flag)
        rc, out, err = run(tl, [CANARY_LOG, flag] + red, tmp)
        if rc == 2 and not SIMULATE_PLAIN:
            print("note: %s is refused (exit 2): %s" % (label, err.strip().splitlines()[0] if err.strip() else ""))
            continue
        if rc != 0:
            fail("%s: exit %d: %s" % (label, rc, err.strip()[-400:]))
            continue
        leaks = scan({"(stdout)": out.encode("utf-8")}, toks)
        report_leaks(label, leaks, by_token)
        if flag == "--json":
            try:
                json.loads(out)
            except ValueError as e:
                fail("%s: stdout is not JSON: %s" % (label, e))
        print("%s: %d bytes, %d leaks" % (label, len(out), sum(1 for h in leaks if not by_token[h[0]].get("ambiguous"))))
    # --all-ranks-html: two ranks of the canary log
    ranks = os.path.join(tmp, "ranks")
    os.makedirs(ranks, exist_ok=True)
    for r in (0, 1):
        shutil.copy(CANARY_LOG, os.path.join(ranks, "dedicated_log_torch_trace_rank_%d.log" % r))
    out_dir = os.path.join(tmp, "ranks_out")
    label = "canary.log x2 --all-ranks-html %s" % " ".join(red)
    rc, _, err = run(tl, ["--no-browser", "--all-ranks-html", ranks, "-o", out_dir] + red, tmp)
    if rc == 2 and not SIMULATE_PLAIN:
        print("note: %s is refused (exit 2): %s" % (label, err.strip().splitlines()[0] if err.strip() else ""))
    elif rc != 0:
        fail("%s: exit %d: %s" % (label, rc, err.strip()[-400:]))
    else:
        files = read_folder(out_dir)
        leaks = scan(files, toks)
        report_leaks(label, leaks, by_token)
        land = files.get("index.html", b"").decode("utf-8", "replace")
        if "redacted" not in land.lower() or "--redact" not in html.unescape(land):
            fail("%s: the landing page (index.html) does not say the report was redacted with --redact" % label)
        for r in (0, 1):
            check_notice_and_raw("%s rank_%d" % (label, r), {n[len("rank_%d/" % r):]: b for n, b in files.items()
                                                            if n.startswith("rank_%d/" % r)})
        print("%s: %d files, %d leaks" % (label, len(files), sum(1 for h in leaks if not by_token[h[0]].get("ambiguous"))))


# ---- 4. the other fixtures ------------------------------------------------------------------

STR_ENTRY = re.compile(r'\] (\{"str": .*\})$')


def user_locs(log_path, user_prefixes):
    """The loc (source line) of every stack frame of the log whose file is the user's."""
    strings, locs = {}, set()

    def frames(v):
        if isinstance(v, dict):
            if isinstance(v.get("loc"), str) and "line" in v and "name" in v:
                yield v
            for x in v.values():
                yield from frames(x)
        elif isinstance(v, list):
            for x in v:
                yield from frames(x)

    with open(log_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("\t"):
                continue
            i = line.find("] {")
            if i < 0:
                continue
            try:
                env = json.loads(line[i + 2:])
            except ValueError:
                continue
            if not isinstance(env, dict):
                continue
            s = env.get("str")
            if isinstance(s, list) and len(s) == 2:
                strings[s[1]] = s[0]
                continue
            for fr in frames(env):
                fn = fr.get("uninterned_filename") or strings.get(fr.get("filename"), "")
                if isinstance(fn, str) and fn.startswith(user_prefixes) and len(fr["loc"].strip()) >= 8:
                    locs.add(fr["loc"].strip())
    return sorted(locs)


def redacted_other(tl, tmp):
    for name, prefixes in (("demo.log", ("/home/user/projects/demo/",)), ("edge.log", ("/home/u/edge/",))):
        path = os.path.join(FIX, name)
        label = "%s %s" % (name, "(plain)" if SIMULATE_PLAIN else "--redact")
        zp = os.path.join(tmp, "other-%s.zip" % name)
        flags = [] if SIMULATE_PLAIN else ["--redact"]
        rc, _, err = run(tl, ["--no-browser", path, "--bundle", zp] + flags, tmp)
        if rc != 0:
            fail("%s: exit %d: %s" % (label, rc, err.strip()[-400:]))
            continue
        files = read_zip(zp)
        check_notice_and_raw(label, files)
        locs = user_locs(path, prefixes)
        for loc, fname, where, ctx in scan(files, locs):
            fail("%s: LEAK of the source line %r of a user frame in %s [%s]: ...%s..." % (label, loc, fname, where, ctx))
        if name == "demo.log" and not SIMULATE_PLAIN:
            # PyTorch's words are kept ("e.g. _warnings.warn", "pybind"); the user's extension
            # demo_ext._C.fast_scale is three hashes
            idx = files["index.html"].decode("utf-8", "replace")
            want = (r"Graph break due to unsupported builtin h_[0-9a-f]{8}\.h_[0-9a-f]{8}\."
                    r"h_[0-9a-f]{8}\. This function is either a Python builtin "
                    r"\(e\.g\. _warnings\.warn\) or a third-party C/C\+\+ Python extension "
                    r"\(perhaps created with pybind\)\.")
            if not re.search(want, idx):
                fail("%s: the graph break reason is not as expected: %s" % (
                    label, re.findall(r"Graph break due to[^<]{0,200}", idx)[:1]))
        print("%s: %d files, %d user source lines checked" % (label, len(files), len(locs)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tl = os.path.realpath(sys.argv[1])
    proof_only = "--proof-only" in sys.argv[2:]
    global SIMULATE_PLAIN
    SIMULATE_PLAIN = "--simulate-plain" in sys.argv[2:]
    doc = load_fixture()
    tmp = tempfile.mkdtemp(prefix="tl_redact_")
    try:
        proof(tl, tmp, doc)
        if not proof_only:
            if not has_redact(tl) and not SIMULATE_PLAIN:
                fail("%s --help does not list --redact: nothing to test" % tl)
            else:
                redacted_canary(tl, tmp, doc)
                redacted_elsewhere(tl, tmp, doc)
                redacted_other(tl, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("redact: %d failure(s)" % len(failures))
        sys.exit(1)
    print("redact: ok")


if __name__ == "__main__":
    main()
