#!/usr/bin/env bash
# --bundle FILE.zip: the report folder as one archive, in one folder named after it (r.zip
# unpacks into r/). Round trip: the archive lists exactly the folder's files under that name,
# each with the same bytes and a good CRC (python3's zipfile reads it as unzip would); alone (no -o) it writes only the archive and leaves no folder behind; an
# existing FILE needs --overwrite; wrong names and modes are refused; a multi-rank report.
# The ZIP64 records (70 000 files, a file over 4 GiB) are checked by tests/unit/test_zip.c.
# The single-page .html bundle is checked in a browser by tests/e2e/test_bundle.py.
# Usage: tests/bundle.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, need_python3, new_tmp, bad
bin=$(realpath "$1")
need_python3 bundle
new_tmp
cd "$tmp" || exit 1

# zip_equals ARCHIVE FOLDER: same names, same bytes, CRCs good
zip_equals() {
    python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
arc, folder = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(arc)
bad = z.testzip()
if bad:
    sys.exit("bad CRC in " + bad)
files = sorted(os.path.relpath(os.path.join(d, f), folder)
               for d, _, fs in os.walk(folder) for f in fs)
top = os.path.basename(arc)[:-4] + "/"
outside = [n for n in z.namelist() if not n.startswith(top)]
if outside:
    sys.exit("not in the archive's folder %s: %s" % (top, outside[:5]))
names = [n[len(top):] for n in z.namelist()]
def rank(n):  # index.html first, the big raw files last, else name order
    top = "/" not in n
    r = 0 if n == "index.html" else 2 if top and n in ("raw.log", "raw.jsonl",
                                                      "chromium_events.json") else 1
    return (r, n.split("/"))
if names != sorted(names, key=rank):
    sys.exit("archive not in order: %s" % names[:8])
if "index.html" in names and names[0] != "index.html":
    sys.exit("index.html is not first")
if sorted(names) != files:
    sys.exit("names differ: only in zip %s, only in folder %s" % (
        sorted(set(names) - set(files))[:5], sorted(set(files) - set(names))[:5]))
for n in names:
    with open(os.path.join(folder, n), "rb") as f:
        if z.read(top + n) != f.read():
            sys.exit("content differs: " + n)
    i = z.getinfo(top + n)
    if i.compress_type != zipfile.ZIP_DEFLATED or (i.external_attr >> 16) != 0o100644:
        sys.exit("entry %s: method %d, mode %o" % (n, i.compress_type, i.external_attr >> 16))
print(len(names))
PY
}

# zip_same ARCHIVE FOLDER: a bundle written straight from the run holds the folder report's
# files (in the archive's one folder), the same bytes but for the footer's command line, which
# names the bundle; in the order they were completed
zip_same() {
    python3 - "$1" "$2" <<'PY'
import os, re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); folder = sys.argv[2]
top = os.path.basename(sys.argv[1])[:-4] + "/"
strip = lambda b: re.sub(rb"(command: <code class='cmd'>|\"command_line\": )[^<\n]*", b"", b)
files = sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs)
assert sorted(z.namelist()) == [top + f for f in files], (sorted(z.namelist())[:3], files[:3])
assert z.testzip() is None
for n in files:
    assert strip(z.read(top + n)) == strip(open(os.path.join(folder, n), "rb").read()), n
PY
}

# page_same PAGE FOLDER: the same for a page bundle, whose index.html comes first
page_same() {
    python3 - "$1" "$2" <<'PY'
import base64, gzip, os, re, sys
s = open(sys.argv[1], encoding="utf-8").read(); folder = sys.argv[2]
files, order, cur = {}, [], None
for m in re.finditer(r'<script type="application/x-tlparse-(file|more)"(?: data-path="([^"]*)" data-size="(\d+)")?>([^<]*)</script>', s):
    if m.group(1) == "file":
        cur = m.group(2); order.append(cur); files[cur] = [m.group(4)]
    else:
        files[cur].append(m.group(4))
strip = lambda b: re.sub(rb"(command: <code class='cmd'>|\"command_line\": )[^<\n]*", b"", b)
want = sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs)
assert sorted(order) == want, (order[:3], want[:3])
assert order[0] == "index.html", order[:3]
for n, parts in files.items():
    data = gzip.decompress(b"".join(base64.b64decode(x) for x in parts))
    assert strip(data) == strip(open(os.path.join(folder, n), "rb").read()), n
PY
}

demo=$here/fixtures/demo.log
"$bin" "$demo" -o out --bundle out.zip --no-browser >/dev/null 2>err.txt || bad "-o with --bundle: exit $?: $(cat err.txt)"
[ "$(tail -1 err.txt)" = "tlparse: out/index.html and out.zip: 5 compile ids, 1 graph break, 1 recompile, 1 failure" ] ||
    bad "message: $(tail -1 err.txt)"
n=$(zip_equals out.zip out) || bad "out.zip vs out/: $n"
[ "${n:-0}" -gt 50 ] || bad "out.zip holds only ${n:-0} files"

# alone: only the archive, no folder, nothing left beside it
mkdir alone
"$bin" "$demo" --bundle alone/r.zip --no-browser >/dev/null 2>err.txt || bad "--bundle alone: exit $?: $(cat err.txt)"
[ "$(tail -1 err.txt)" = "tlparse: alone/r.zip: 5 compile ids, 1 graph break, 1 recompile, 1 failure" ] ||
    bad "alone message: $(tail -1 err.txt)"
# unzip makes one folder, named after the archive
if command -v unzip >/dev/null; then
    mkdir unz && (cd unz && unzip -q ../alone/r.zip) || bad "unzip alone/r.zip failed"
    [ "$(ls -A unz)" = r ] || bad "alone/r.zip unpacks into: $(ls -A unz | head -5)"
    [ -f unz/r/index.html ] || bad "alone/r.zip: no r/index.html"
fi
[ "$(ls -A alone)" = "r.zip" ] || bad "alone/ holds: $(ls -A alone)"
[ ! -e tl_out ] || bad "--bundle alone wrote tl_out"
rm -rf ref && "$bin" "$demo" -o ref --no-browser >/dev/null 2>&1
# the same report (but for the footer's command line, which names the bundle)
zip_same alone/r.zip ref || bad "alone/r.zip differs from the folder report"

# a page alone: written straight from the run, nothing left beside it; the same files as the
# folder report, index.html first (the browser shows it as soon as it has parsed it)
mkdir page
"$bin" "$demo" --bundle page/p.html --no-browser >/dev/null 2>err.txt || bad "--bundle page: exit $?: $(cat err.txt)"
[ "$(ls -A page)" = "p.html" ] || bad "page/ holds: $(ls -A page)"
page_same page/p.html ref || bad "page/p.html differs from the folder report"

# an existing bundle is not replaced without --overwrite
"$bin" "$demo" --bundle alone/r.zip --no-browser >/dev/null 2>err.txt
[ $? = 1 ] || bad "existing bundle: exit not 1"
grep -q "alone/r.zip already exists (use --overwrite to replace it)" err.txt || bad "exists message: $(cat err.txt)"
[ "$(ls -A alone)" = "r.zip" ] || bad "a refused run left: $(ls -A alone)"
"$bin" "$demo" --bundle alone/r.zip --overwrite --no-browser >/dev/null 2>&1 || bad "--overwrite: exit $?"
mkdir d.zip
"$bin" "$demo" --bundle d.zip --overwrite --no-browser >/dev/null 2>err.txt
[ $? = 1 ] && grep -q "d.zip exists and is not a file" err.txt || bad "a folder named like the bundle: $(cat err.txt)"

# names and modes it refuses
"$bin" "$demo" --bundle r.tar --no-browser >/dev/null 2>err.txt
[ $? = 2 ] && grep -q "tlparse: error: --bundle wants a file name ending in .zip or .html, not r.tar" err.txt ||
    bad "bad extension: $(cat err.txt)"
"$bin" "$demo" --bundle r.zip --summary >/dev/null 2>err.txt
[ $? = 2 ] && grep -q "cannot use --bundle with --summary or --json" err.txt || bad "--summary: $(cat err.txt)"
[ ! -e r.zip ] || bad "a refused --bundle wrote r.zip"

# a multi-rank report
mkdir ranks
cp "$demo" ranks/dedicated_log_torch_trace_rank_0.log
cp "$here/fixtures/edge.log" ranks/dedicated_log_torch_trace_rank_1.log
"$bin" ranks --all-ranks-html -o mr --bundle mr.zip --no-browser >/dev/null 2>err.txt || bad "multi-rank: exit $?: $(cat err.txt)"
zip_equals mr.zip mr >/dev/null || bad "mr.zip vs mr/"
python3 -c "import sys,zipfile; n=zipfile.ZipFile('mr.zip').namelist(); sys.exit(not {'mr/index.html','mr/rank_0/index.html','mr/rank_1/index.html'} <= set(n))" ||
    bad "mr.zip lacks the landing page or a rank"
# alone: written straight from the run (no folder, nothing left beside it), the report
# --name-order writes (a bundle has no file system's order); a rank that cannot be read is
# in it as in the folder
printf '\x89PNG\r\n\x1a\n' >ranks/dedicated_log_torch_trace_rank_2.log
# rank 3 fails once its report is begun (no entry in its lines): its files go, its summary stays
printf 'V1126 12:00:00.000000 1 foo.py:1] hello\nV1126 12:00:00.000000 1 foo.py:1] more\n' \
    >ranks/dedicated_log_torch_trace_rank_3.log
rm -rf mr && "$bin" ranks --all-ranks-html -o mr --name-order --no-browser >/dev/null 2>&1 || bad "multi-rank folder: exit $?"
mkdir mralone
for b in mralone/r.zip mralone/r.html; do
    "$bin" ranks --all-ranks-html --bundle "$b" --no-browser >/dev/null 2>err.txt || bad "multi-rank $b: exit $?: $(cat err.txt)"
    [ "$(tail -1 err.txt)" = "tlparse: $b: 2 ranks (and 2 not read), 10 compile ids, 2 graph breaks, 1 recompile, 2 failures" ] ||
        bad "multi-rank $b: message: $(tail -1 err.txt)"
done
[ "$(ls -A mralone | tr '\n' ' ')" = "r.html r.zip " ] || bad "multi-rank bundles left: $(ls -A mralone)"
[ ! -e tl_out ] || bad "a multi-rank bundle wrote tl_out"
[ "$(ls mr/rank_3)" = summary.json ] || bad "the rank that failed midway left: $(ls mr/rank_3)"
zip_same mralone/r.zip mr || bad "multi-rank r.zip differs from the --name-order folder"
page_same mralone/r.html mr || bad "multi-rank r.html differs from the --name-order folder"

[ "$fail" = 0 ] || exit 1
echo "bundle: ok"
