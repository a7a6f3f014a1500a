#!/usr/bin/env bash
# Untrusted names: artifact, graph_dump, dump_file, optimize_ddp_split_child and link
# names, inductor_output_code file names and has_payload values full of `../`, `/`, `\`,
# NUL, control characters, leading dots, absolute paths, Windows device names and
# 10 000-character names. Each case runs in a fresh folder with a canary tree around
# the output folder, once as HTML and once with -p, and checks that
#   (a) nothing was created or changed outside the output folder,
#   (b) no symbolic link was created,
#   (c) every path of the report (files, compile_directory.json urls, raw.jsonl
#       payload_filename, index.html hrefs as a browser resolves them) is inside it,
#   (d) index.html and compile_directory.json still show what the name was.
# Then names that collide (file vs folder), and pre-planted symbolic links.
# Usage: tests/names.sh path/to/tlparse     (needs python3)
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # counts cases (begin, mark_failed, tally)
bin=$(realpath "$1")
tmp=$(mktemp -d)
mark="tlnames$$"
trap 'rm -rf "$tmp" /tmp/*"$mark"* 2>/dev/null' EXIT
cd "$tmp" || exit 1

bad() {
    mark_failed
    echo "    $*" | cut -c1-400
}

# ---- the cases: ID NAME TOKEN (NAME and TOKEN as JSON string literals; TOKEN "" skips
# check (d) for file names)
specs=()
add() { specs+=("$1"$'\t'"$2"$'\t'"$3"); }
add dotdot_slash "\"../../../../../../../../../../tmp/esc_$mark\"" '"esc_"'
add dotdot_in_middle '"a/../../../b_dotdot"' '"b_dotdot"'
add absolute_etc_passwd '"/etc/passwd"' '"passwd"'
add absolute_tmp "\"/tmp/abs_$mark\"" "\"abs_$mark\""
add backslashes "\"..\\\\..\\\\..\\\\win_$mark\"" '"win_"'
add nul_byte '"evil\u0000name\u0000.txt"' '"evil"'
add control_characters '"ctl\u0001\u001b[31m\u007f\r\n\tname"' '"ctl"'
add only_dotdot '".."' '""'
add only_dot '"."' '""'
add leading_dots '"...hidden"' '"hidden"'
add leading_dot_folder '".git/config"' '"config"'
add device_con '"CON"' '"CON"'
add device_nul_txt '"NUL.txt"' '"NUL"'
add device_lpt1 '"LPT1"' '"LPT1"'
add device_lowercase_com '"com9.json"' '"com9"'
add device_in_folder '"CON/aux/prn.x"' '"prn"'
add empty_name '""' '""'
add slashes_only '"///"' '""'
long=$(printf 'long-name-0123456789-%.0s' $(seq 480) | head -c 10000)
add long_10000 "\"$long\"" "\"${long:0:50}\""
ulong=$(printf '\u00e9\u4e2d%.0s' $(seq 2000))
add long_unicode "\"$ulong\"" "\"${ulong:0:50}\""
many=$(printf 'seg/%.0s' $(seq 100))last
add hundred_folders "\"$many\"" '"last"'
# Folders that are each short enough, but a path longer than PATH_MAX (4096): must be
# shortened or flattened, not abort the run.
deep=$(printf '%0199d/' $(seq 21) | tr 0 d)deep_leaf
add path_longer_than_path_max "\"$deep\"" '"deep_leaf"'
# '#', '?' and '%' are plain characters of a file name but special in a URL: the link
# in index.html must still open the file.
add url_special_characters '"a#b?c=1%41 z"' '"a#b"'

# ---- every log of the run, written at once (python3 starts slowly)
printf '%s\n' "${specs[@]}" >specs.tsv
mkdir logs reports
python3 - specs.tsv logs <<'EOF' || echo "cannot write the logs"
import hashlib, json, sys
P = "V1121 10:00:00.000000 1 torch/x.py:1] "
CID = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
def md5(s):
    return hashlib.md5(s.encode()).hexdigest()
def entry(out, env, payload=None, has=None):
    env = dict(env, **CID)
    if payload is not None:
        env["has_payload"] = has if has is not None else md5(payload)
    out.append(P + json.dumps(env) + "\n")
    if payload is not None:
        out.extend("\t" + l + "\n" for l in payload.split("\n"))
for line in open(sys.argv[1], encoding="utf-8"):
    case, name_json, _ = line.rstrip("\n").split("\t")
    name = json.loads(name_json)
    out = []
    entry(out, {"artifact": {"name": name, "encoding": "string"}}, "artifact string")
    entry(out, {"artifact": {"name": name, "encoding": "json"}}, '{"a": 1}')
    entry(out, {"graph_dump": {"name": name}}, "graph dump")
    entry(out, {"dump_file": {"name": name}}, "def f(): pass")
    entry(out, {"optimize_ddp_split_child": {"name": name}}, "split child")
    entry(out, {"inductor_output_code": {"filename": name}}, "print(1)")
    entry(out, {"link": {"name": name, "url": name}})
    entry(out, {"dynamo_start": {}}, "unclaimed payload", has=name)  # payloads/<has_payload>.txt
    open("%s/%s.log" % (sys.argv[2], case), "w", encoding="utf-8").write("".join(out))
# file/folder collisions: two entries of one kind, payloads "first" and "second"
for case, kind, a, b in (("dump_file_then_folder_of_same_name", "dump_file", "foo", "foo.html/bar"),
                         ("folder_then_dump_file_of_same_name", "dump_file", "foo.html/bar", "foo"),
                         ("artifact_then_folder_of_same_name", "artifact", "x", "x_0.txt/y"),
                         ("graph_dump_folder_then_file", "graph_dump", "a_1.txt/b", "a")):
    out = []
    for n, payload in ((a, "first"), (b, "second")):
        env = {"artifact": {"name": n, "encoding": "string"}} if kind == "artifact" else {kind: {"name": n}}
        entry(out, env, payload)
    open("%s/%s.log" % (sys.argv[2], case), "w").write("".join(out))
# payloads/<has_payload>.txt: two has_payload values that the escaping makes equal
out = []
entry(out, {"dynamo_start": {}}, "first", has="a/b")
entry(out, {"dynamo_start": {}}, "second", has="a_b")
open("%s/payload_names_that_escape_alike.log" % sys.argv[2], "w").write("".join(out))
entry(out := [], {"artifact": {"name": "plain", "encoding": "string"}}, "plain")
entry(out, {"dump_file": {"name": "plain.py"}}, "x = 1")
open("%s/plain.log" % sys.argv[2], "w").write("".join(out))
EOF

# snapshot DIR: every entry outside the output folder: type, and size and mtime of files.
snapshot() {
    (cd "$1" && find . -path ./work/out -prune -o -type d -printf '%p d\n' -o -printf '%p %y %s %T@\n' |
        LC_ALL=C sort)
}
# canary: a fresh case folder: files beside and above the output folder.
canary() {
    cw="$tmp/case_$cur"
    rm -rf "$cw"
    mkdir -p "$cw/work" "$cw/canary/deep" "$cw/etc"
    echo precious >"$cw/canary/keep.txt"
    echo root:x:0:0 >"$cw/etc/passwd"
    echo sibling >"$cw/work/sibling.txt"
    echo deep >"$cw/canary/deep/x"
    touch -d '2020-01-01' "$cw/canary/keep.txt" "$cw/etc/passwd" "$cw/work/sibling.txt"
    cp "logs/$cur.log" "$cw/work/n.log"
}
outside_marks() { # files named after the marker wherever a '..' or absolute name could land
    find / -maxdepth 1 -name "*$mark*" 2>/dev/null
    find /tmp /etc "$(dirname "$tmp")" -maxdepth 2 -name "*$mark*" ! -path "$tmp/*" 2>/dev/null
}
passwd_before=$(stat -c '%s %Y' /etc/passwd)

# contained STDERR_WANT [FLAG]: run tlparse in the case folder, check (a) and (b), keep
# the report in reports/CASE[FLAG] for the batch check of (c) and (d).
contained() {
    local want=$1 flag=${2:-} before after rc links
    links=$(find "$cw" -type l | wc -l)
    rm -rf "$cw/work/out"
    before=$(snapshot "$cw")
    (cd "$cw/work" && "$bin" n.log -o out --no-browser $flag >"$tmp/out.txt" 2>"$tmp/err.txt")
    rc=$?
    [ "$rc" = 0 ] || bad "exit $rc${flag:+ with $flag}; stderr: $(head -c 300 "$tmp/err.txt")"
    # the md5 warning of the payloads/<has_payload> entry is expected, and the last line names
    # the report
    local rest
    tail -1 "$tmp/err.txt" | grep -q '^tlparse: out/index.html: [0-9]* compile id' ||
        bad "last line${flag:+ with $flag}: $(tail -1 "$tmp/err.txt")"
    rest=$(sed '$d' "$tmp/err.txt" | grep -v '^tlparse: warning: n.log:[0-9]*: payload md5 mismatch (has_payload ')
    [ "$rest" = "$want" ] || bad "stderr${flag:+ with $flag}: $(head -c 300 "$tmp/err.txt")"
    after=$(snapshot "$cw")
    [ "$before" = "$after" ] || bad "(a) changed outside the output folder: $(diff <(echo "$before") <(echo "$after") | head -6)"
    [ -z "$(outside_marks)" ] || bad "(a) escaped: $(outside_marks)"
    [ "$(find "$cw" -type l | wc -l)" = "$links" ] || bad "(b) symlink created: $(find "$cw" -type l)"
    [ ! -d "$cw/work/out" ] || mv "$cw/work/out" "reports/$cur$flag"
}

# ============================================================================ names
for s in "${specs[@]}"; do
    IFS=$'\t' read -r id name token <<<"$s"
    begin "$id"
    canary
    contained "Stats { ok: 8, fail_payload_md5: 1 }"
    contained "Stats { ok: 8, fail_payload_md5: 1 }" -p
    printf '%s\t%s\t%s\n%s-p\t%s\t%s\n' "$id" "$name" "$token" "$id" "$name" "$token" >>checks.tsv
done

# ============================================================================ collisions
# The same name as a file and a folder: no abort, both payloads behind their own entry.
for id in dump_file_then_folder_of_same_name folder_then_dump_file_of_same_name \
    artifact_then_folder_of_same_name graph_dump_folder_then_file; do
    begin "$id"
    canary
    contained "Stats { ok: 2 }"
    printf '%s\t%s\t%s\n' "$id" '"-collision-"' '""' >>checks.tsv
done
begin payload_names_that_escape_alike
canary
contained "Stats { ok: 2, fail_payload_md5: 2 }"
printf '%s\t%s\t%s\n' payload_names_that_escape_alike '"-payload-collision-"' '""' >>checks.tsv

# ---- (c) and (d) for every report, in one python run
cat >check.py <<'EOF'
import html, json, os, re, sys, urllib.parse
def check(out, name, token, collision):
    root = os.path.realpath(out)
    link = name.replace("\0", "\ufffd")  # a link keeps its name and url, NUL shown as U+FFFD
    probs = []
    def inside(rel, what):
        """rel must be a plain relative path to an existing file of the report."""
        parts = rel.split("/")
        if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
            probs.append("%s %r is not a plain relative path" % (what, rel))
            return
        p = os.path.realpath(os.path.join(out, rel))
        if not p.startswith(root + "/"):
            probs.append("%s %r leaves the report" % (what, rel))
        elif not os.path.isfile(p):
            probs.append("%s %r is not a file of the report" % (what, rel))
    for d, dirs, files in os.walk(out):
        for f in dirs + files:
            p = os.path.join(d, f)
            if os.path.islink(p):
                probs.append("symlink in the report: %r" % p)
            if not os.path.realpath(p).startswith(root + "/"):
                probs.append("outside the report: %r" % p)
    read = lambda f: open(os.path.join(out, f), encoding="utf-8", newline="").read()
    cd = json.loads(read("compile_directory.json"))
    arts = [a for k in cd for a in cd[k]["artifacts"]]
    shown = []  # (kind, name shown)
    for a in arts:
        if not collision and a["number"] == 6:  # the link entry: its url is the log's
            shown.append(("link", a["name"]))
            if a["url"] != link:
                probs.append("link url %r, want %r" % (a["url"], link))
            continue
        inside(a["url"], "compile_directory.json url")
        shown.append((a["url"], a["name"]))
    for line in read("raw.jsonl").splitlines()[1:]:
        rec = json.loads(line)
        pf = rec.get("payload_filename")
        if pf:
            inside(pf, "raw.jsonl payload_filename")
            if "dynamo_start" in rec:  # the entry whose has_payload is the name
                shown.append(("payload", pf))
    index = read("index.html")
    for m in re.finditer(r"""href=("([^"]*)"|'([^']*)')""", index):
        href = html.unescape(m.group(2) if m.group(2) is not None else m.group(3))
        # collectives_parity.json: always linked, written by multi-rank runs only (spec §4.1)
        if href.startswith("#") or href == link or href.startswith(("http://", "https://")) \
                or href == "collectives_parity.json":
            continue
        # what a browser opens: the path of the URL, percent-decoded; it must be a file
        # of the report (names with '#', '?', '%' or spaces are percent-encoded)
        path = urllib.parse.unquote(urllib.parse.urlsplit(href).path)
        if not os.path.isfile(os.path.join(out, path)):
            probs.append("index.html href %r opens %r, which is not a file of the report" % (href, path))
        inside(path, "index.html href")
    if name == "-payload-collision-":
        pfs = [json.loads(l).get("payload_filename") for l in read("raw.jsonl").splitlines()[1:]]
        texts = [open(os.path.join(out, u)).read() if u and os.path.isfile(os.path.join(out, u)) else None for u in pfs]
        if texts != ["first", "second"]:
            probs.append("raw.jsonl payload files %r hold %r, want 'first' and 'second'" % (pfs, texts))
        return probs
    if collision:
        urls = [a["url"] for a in arts]
        texts = [open(os.path.join(out, u), errors="replace").read() for u in urls if os.path.isfile(os.path.join(out, u))]
        if len(set(urls)) != 2 or len(texts) != 2 or "first" not in texts[0] or "second" not in texts[1]:
            probs.append("want 2 entries holding 'first' and 'second', got %r" % urls)
        return probs
    # (d) the listing still shows the name: a link shows the last '/'-part of its name
    # (spec §5.4) exactly; file entries show the token (inductor_output_code: when the
    # token is in the stem of the file name, the only part the reference keeps)
    if len(shown) != 8:
        probs.append("want 8 entries (6 files, 1 link, 1 payload), got %d: %r" % (len(shown), shown))
    for kind, s in shown:
        if kind == "link":
            if s != link.rsplit("/", 1)[-1]:
                probs.append("link listed as %r, want %r" % (s, link.rsplit("/", 1)[-1]))
            continue
        if not token:
            continue
        if "inductor_output_code" in kind:
            base = name.rsplit("/", 1)[-1]
            stem = base[:base.rindex(".")] if "." in base[1:] else base
            if token not in stem:
                continue
        if token not in s:
            probs.append("listing %r does not show %r" % (s, token))
    for kind, s in shown:
        if kind != "payload" and html.escape(s, quote=False) not in index and html.escape(s) not in index:
            probs.append("index.html does not list %r" % s)
    return probs
for line in open(sys.argv[1], encoding="utf-8"):
    rep, name_json, token_json = line.rstrip("\n").split("\t")
    out = os.path.join(sys.argv[2], rep)
    case = rep[:-2] if rep.endswith("-p") else rep
    if not os.path.isdir(out):
        continue  # the run failed: reported already
    try:
        probs = check(out, json.loads(name_json), json.loads(token_json), name_json.startswith('"-'))
    except Exception as e:
        probs = ["check failed: %r" % e]
    for p in probs[:6]:
        print("%s\t(c/d)%s: %s" % (case, " with -p" if rep.endswith("-p") else "", p[:300]))
EOF
while IFS=$'\t' read -r id msg; do
    cur=$id
    bad "$msg"
done < <(python3 check.py checks.tsv reports 2>&1)

# ============================================================================ symlinks
# The output folder's name is taken by a symbolic link to a precious folder.
planted() {
    begin "$1"
    cur=plain canary
    mv "$tmp/case_plain" "$tmp/case_$1"
    cw="$tmp/case_$1"
    mkdir -p "$cw/victim/sub"
    echo precious >"$cw/victim/keep.txt"
    echo precious >"$cw/victim/sub/keep.txt"
}
victim_intact() {
    [ "$(cat "$cw/victim/keep.txt" 2>/dev/null)" = precious ] &&
        [ "$(cat "$cw/victim/sub/keep.txt" 2>/dev/null)" = precious ] &&
        [ "$(find "$cw/victim" | wc -l)" = 4 ] || bad "victim folder changed: $(find "$cw/victim")"
}
no_temp() {
    local left
    left=$(find "$cw" -name '.*.tlparse-*' | head -3)
    [ -z "$left" ] || bad "temporary folder left: $left"
}
tl() { # tl CODE ARGS...: run in the case's work folder
    local want=$1
    shift
    (cd "$cw/work" && "$bin" n.log --no-browser "$@" >"$tmp/out.txt" 2>"$tmp/err.txt")
    local rc=$?
    [ "$rc" = "$want" ] || bad "tlparse $* exited $rc, want $want; stderr: $(head -c 400 "$tmp/err.txt")"
}
err_is() { [ "$(cat "$tmp/err.txt")" = "$1" ] || bad "stderr: $(cat "$tmp/err.txt"); want: $1"; }

planted symlink_to_folder_named_like_output
ln -s ../victim "$cw/work/out"
tl 1 -o out
err_is "tlparse: error: out exists and is not a folder; not replacing it (use -o OUTDIR to write the report elsewhere)"
tl 1 -o out --overwrite
err_is "tlparse: error: out exists and is not a folder; not replacing it (use -o OUTDIR to write the report elsewhere)"
victim_intact
[ "$(readlink "$cw/work/out")" = ../victim ] || bad "the link was changed"
no_temp

planted symlink_with_trailing_slash
ln -s ../victim "$cw/work/out"
tl 1 -o out/ --overwrite
grep -q '^tlparse: error: .*out' "$tmp/err.txt" || bad "no error naming out: $(cat "$tmp/err.txt")"
victim_intact
[ "$(readlink "$cw/work/out")" = ../victim ] || bad "the link was changed"
no_temp

planted dangling_symlink_named_like_output
ln -s ../not_there "$cw/work/out"
tl 1 -o out
err_is "tlparse: error: out exists and is not a folder; not replacing it (use -o OUTDIR to write the report elsewhere)"
tl 1 -o out --overwrite
err_is "tlparse: error: out exists and is not a folder; not replacing it (use -o OUTDIR to write the report elsewhere)"
[ ! -e "$cw/not_there" ] || bad "wrote through a dangling link"
no_temp

planted old_report_holding_symlinks
# --overwrite removes the old report's links, never what they point to.
mkdir -p "$cw/work/out/sub"
ln -s ../../victim/keep.txt "$cw/work/out/file_link"
ln -s ../../victim "$cw/work/out/dir_link"
ln -s "$cw/victim/sub" "$cw/work/out/sub/abs_link"
tl 0 -o out --overwrite
victim_intact
[ -z "$(find "$cw/work/out" -type l)" ] || bad "links left in the new report"
[ -f "$cw/work/out/index.html" ] || bad "no new report"
no_temp

planted report_folder_is_a_symlink_inside_output
# The old report's dump_file folder is a link elsewhere: the new report must not write
# through it (it is a new folder), and the old one is removed without following it.
mkdir -p "$cw/work/out"
ln -s ../../victim "$cw/work/out/dump_file"
tl 0 -o out --overwrite
victim_intact
[ -d "$cw/work/out/dump_file" ] && [ ! -L "$cw/work/out/dump_file" ] || bad "dump_file is not a new folder"
no_temp

begin etc_passwd_unchanged
[ "$(stat -c '%s %Y' /etc/passwd)" = "$passwd_before" ] || bad "/etc/passwd changed"
tally
summary_line names
