#!/usr/bin/env bash
# Installing and packaging: `make install` into temporary prefixes (the exact files, a C
# program against the shared and the static libtlparse, pkg-config, the soname, the exported
# symbols), the man pages and the completions (against `tlparse --help`, `tlparse diff
# --help` and `tlparse-slurm --help`), tlparse-slurm running the tlparse beside it, the .debs of `make deb` installed into a throwaway root by dpkg and removed
# again, and the wheel of `make wheel` in a fresh venv. Never touches the host's packages or
# the source tree (but for the build dir of BIN and build-wheel/, which it brings up to date).
# Usage: tests/install.sh path/to/tlparse (of a Release build: `make check` runs it in build/)
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # counts checks (ok, bad; its same and exists are its own, below)
start=$SECONDS
bin=$(realpath "$1")
bdir=$(dirname "$bin")
root=$(cd "$(dirname "$0")/.." && pwd)
ver=$(cat "$root/VERSION") # the version, written only there
debver=$(sed -n '1s/^tlparse (\([^)]*\)).*/\1/p' "$root/debian/changelog") # VERSION-N
demo="$root/tests/fixtures/demo.log"
tmp=$(mktemp -d)
debpid=
cleanup() {
    [ -n "$debpid" ] && kill -- "-$debpid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

check() { # check WHAT COMMAND...: the command succeeds
    local what=$1
    shift
    if "$@" >"$tmp/check.out" 2>&1; then ok; else bad "$what: $(head -c 600 "$tmp/check.out")"; fi
}
# not lib.sh's same and exists: same compares two strings; exists takes a dangling symbolic link
same() { # same WHAT GOT WANT
    if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}
exists() { if [ -e "$1" ] || [ -L "$1" ]; then ok; else bad "$1 does not exist"; fi; }

# --- what it needs: a missing tool fails the test, naming its Debian package
missing=
need() { command -v "$1" >/dev/null 2>&1 || missing="$missing $1 (Debian package $2);"; }
need cmake cmake
need ninja ninja-build
need make make
need pkg-config pkg-config
need cc gcc
need readelf binutils
need nm binutils
need man man-db
need groff groff-base
need zsh zsh
need dpkg-buildpackage dpkg-dev
need dh debhelper
need fakeroot fakeroot
need python3 python3
if [ -n "$missing" ]; then
    echo "FAIL: missing:$missing scripts/deps.sh check installs them"
    exit 1
fi
if [ ! -f "$bdir/CMakeCache.txt" ]; then
    echo "FAIL: $bin is not in a CMake build dir"
    exit 1
fi
btype=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$bdir/CMakeCache.txt")
if [ "$btype" != Release ] || grep -q '^CMAKE_C_FLAGS:.*sanitize' "$bdir/CMakeCache.txt"; then
    echo "FAIL: tests/install.sh runs against a Release build (build/tlparse), not '$btype'"
    exit 1
fi
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$bdir/CMakeCache.txt")
libdir=${libdir:-lib}
host_status=$(md5sum </var/lib/dpkg/status)
version_re="^tlparse ${ver//./\\.}"'( \(revision [0-9a-f]{12}(-dirty)?\))?$'

# --- the .debs build in the background (the longest part) while the rest runs
setsid bash -c 'make --no-print-directory -C "$1" deb DEB_DIR="$2/deb" >"$2/deb.log" 2>&1
                echo $? >"$2/deb.rc"' _ "$root" "$tmp" &
debpid=$!

# --- make install PREFIX=...: exactly these files
check "make install" make --no-print-directory -C "$root" install BUILD="$bdir" PREFIX="$tmp/usr"
prefix=$tmp/usr
expected=$(
    {
        printf '%s\n' bin/tlparse bin/tlparse-slurm share/man/man1/tlparse.1 \
            share/man/man1/tlparse-slurm.1 \
            share/bash-completion/completions/tlparse share/zsh/site-functions/_tlparse \
            "$libdir/libtlparse.a" "$libdir/libtlparse.so" "$libdir/libtlparse.so.1" \
            "$libdir/libtlparse.so.$ver" "$libdir/pkgconfig/tlparse.pc"
        for h in "$root"/include/tlparse/*.h; do echo "include/tlparse/$(basename "$h")"; done
        echo include/tlparse/version.h # made from include/tlparse/version.h.in
    } | LC_ALL=C sort
)
installed() { (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort); }
same "installed files" "$(installed "$prefix")" "$expected"
same "libtlparse.so" "$(readlink "$prefix/$libdir/libtlparse.so")" libtlparse.so.1
same "libtlparse.so.1" "$(readlink "$prefix/$libdir/libtlparse.so.1")" "libtlparse.so.$ver"
same "mode of bin/tlparse" "$(stat -c %a "$prefix/bin/tlparse")" 755
same "mode of bin/tlparse-slurm" "$(stat -c %a "$prefix/bin/tlparse-slurm")" 755
# DESTDIR is honoured
check "make install DESTDIR" make --no-print-directory -C "$root" install BUILD="$bdir" \
    PREFIX=/opt/tlparse DESTDIR="$tmp/dest"
same "installed files with DESTDIR" "$(installed "$tmp/dest/opt/tlparse")" "$expected"
same "nothing outside DESTDIR/PREFIX" "$(ls -A "$tmp/dest")" opt

# the installed tlparse runs and renders the demo
if "$prefix/bin/tlparse" --version >"$tmp/v" 2>&1 && grep -Eq "$version_re" "$tmp/v"; then ok; else
    bad "installed tlparse --version: $(cat "$tmp/v")"
fi
check "installed tlparse renders demo.log" "$prefix/bin/tlparse" "$demo" -o "$tmp/out" --no-browser
exists "$tmp/out/index.html"

# tlparse-slurm runs the tlparse beside it (not one on PATH): its node step, then finish, on a
# folder with one rank log, as on a machine without Slurm
mkdir -p "$tmp/ranks" && cp "$demo" "$tmp/ranks/dedicated_log_torch_trace_rank_0.log"
slurm_runs() { # slurm_runs WHAT BINDIR: BINDIR/tlparse-slurm makes the report with BINDIR/tlparse
    local out=$tmp/slurm_${1// /_}
    if env -u TLPARSE PATH=/usr/bin:/bin "$2/tlparse-slurm" node "$tmp/ranks" -o "$out" >"$tmp/sl.out" 2>&1 &&
        env -u TLPARSE PATH=/usr/bin:/bin "$2/tlparse-slurm" finish -o "$out" >>"$tmp/sl.out" 2>&1 &&
        grep -qF "parsed by $2/tlparse" "$tmp/sl.out" && [ -s "$out/rank_0/index.html" ] &&
        grep -q '<a href="rank_0/index.html">Rank 0</a>' "$out/index.html"; then
        ok
    else
        bad "$1 tlparse-slurm node and finish: $(head -c 600 "$tmp/sl.out")"
    fi
}
slurm_runs installed "$prefix/bin"

# --- libtlparse: soname, exported symbols
so=$prefix/$libdir/libtlparse.so.$ver
same "soname" "$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" libtlparse.so.1
exports=$(nm -D --defined-only "$so" | awk '{print $3}' | LC_ALL=C sort)
for sym in tl_run tl_version tl_version_revision tl_feed_new tl_feed_bytes tl_feed_finish; do
    if grep -qx "$sym" <<<"$exports"; then ok; else bad "libtlparse.so does not export $sym"; fi
done
for sym in $exports; do # only what the public headers declare with TL_API
    if grep -h "TL_API" "$prefix"/include/tlparse/*.h | grep -qw -- "$sym"; then ok; else
        bad "libtlparse.so exports $sym, which no TL_API declaration of include/tlparse names"
    fi
done

# --- pkg-config, from a moved prefix (the .pc file is relocatable)
mv "$prefix" "$tmp/moved" && prefix=$tmp/moved && so=$prefix/$libdir/libtlparse.so.$ver
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
flags=$(pkg-config --cflags --libs tlparse) || bad "pkg-config --cflags --libs tlparse failed"
sflags=$(pkg-config --static --libs tlparse) || bad "pkg-config --static --libs tlparse failed"
same "pkg-config --modversion" "$(pkg-config --modversion tlparse)" "$ver"
canon() { # the flags with their paths made canonical
    local f
    for f in "$@"; do
        case $f in
        -I* | -L*) echo "${f:0:2}$(realpath -m "${f:2}")" ;;
        *) echo "$f" ;;
        esac
    done
}
# shellcheck disable=SC2086
same "pkg-config --cflags --libs" "$(canon $flags | xargs)" "-I$prefix/include -L$prefix/$libdir -ltlparse"
for f in -ltlparse -lmd -lz -lzstd -lpthread -lm; do
    if grep -qw -- "$f" <<<"$sflags"; then ok; else bad "pkg-config --static --libs lacks $f: $sflags"; fi
done

# --- a C program against the installed shared and static library
cat >"$tmp/t.c" <<'EOF'
#include <tlparse/tlparse.h>
#include <tlparse/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    struct tl_options opt;
    memset(&opt, 0, sizeof(opt));
    opt.path = argv[1];
    opt.summary = TL_SUMMARY_JSON;
    struct tl_result res;
    int rc = tl_run(&opt, &res);
    int five = res.summary && strstr(res.summary, "\"compile_ids\": 5,") != NULL;
    free(res.summary);
    memset(&opt, 0, sizeof(opt));
    opt.path = argv[1];
    opt.out_dir = argv[2];
    int rc2 = tl_run(&opt, &res);
    printf("%s %s %d %d %d %s\n", tl_version(), TL_VERSION_STRING, rc, five, rc2, res.index_path);
    tl_result_release(&res);
#if TL_VERSION_NUMBER != TL_VERSION_MAJOR * 10000 + TL_VERSION_MINOR * 100 + TL_VERSION_PATCH
#error "TL_VERSION_NUMBER"
#endif
    return 0;
}
EOF
cflags=(-std=c17 -Wall -Wextra -Werror)
# shellcheck disable=SC2086
check "cc against libtlparse.so" cc "${cflags[@]}" -o "$tmp/t_shared" "$tmp/t.c" $flags \
    -Wl,-rpath,"$prefix/$libdir"
# shellcheck disable=SC2086
check "cc against libtlparse.a" cc "${cflags[@]}" -o "$tmp/t_static" "$tmp/t.c" \
    $(pkg-config --cflags tlparse) ${sflags/-ltlparse/-l:libtlparse.a}
if readelf -d "$tmp/t_shared" | grep -q 'NEEDED.*\[libtlparse\.so\.1\]'; then ok; else
    bad "t_shared does not need libtlparse.so.1"
fi
if readelf -d "$tmp/t_static" | grep -q 'NEEDED.*libtlparse'; then
    bad "t_static needs libtlparse.so"
else ok; fi
for t in t_shared t_static; do
    same "$t" "$("$tmp/$t" "$demo" "$tmp/out_$t" 2>/dev/null)" "$ver $ver 0 1 0 $tmp/out_$t/index.html"
    exists "$tmp/out_$t/index.html"
done
unset PKG_CONFIG_PATH

# --- the man page and the completions follow `tlparse --help` and `tlparse diff --help`
lint() { # lint MANPAGE: groff says nothing
    local err
    err=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$1" 2>&1 >/dev/null)
    if [ -z "$err" ]; then ok; else bad "man --warnings -l $1: $err"; fi
}
lint "$root/man/tlparse.1"
lint "$prefix/share/man/man1/tlparse.1"
lint "$root/man/tlparse-slurm.1"
lint "$prefix/share/man/man1/tlparse-slurm.1"
# options_of HELP: the long and the short options a --help lists, as longs and shorts
options_of() {
    longs=$(sed -nE 's/^  (-[A-Za-z], |    )--([a-z][a-z0-9-]*).*/\2/p' "$1")
    shorts=$(sed -nE 's/^  -([A-Za-z])[ ,].*/\1/p' "$1")
}
# documented MAN BASH ZSH: each of longs and shorts is in the man page (or its section) and
# in the bash and the zsh completions (or their function)
documented() {
    local o re
    for o in $longs; do
        re="$(printf '%s' "--$o" | sed 's/-/\\\\-/g')"'([^a-z0-9\\]|\\[^-]|$)' # roff's \-\-name
        grep -qE -- "$re" "$1" || bad "$4 does not document --$o"
        grep -qE -- "--$o([^a-z0-9-]|$)" "$2" || bad "$5 lacks --$o"
        grep -qE -- "--$o([^a-z0-9-]|$)" "$3" || bad "$6 lacks --$o"
    done
    for o in $shorts; do
        grep -qE -- '(^|[^-])\\-'"$o"'([^a-zA-Z0-9\\]|\\[^-]|$)' "$1" || bad "$4 does not document -$o"
        grep -qE -- "(^|[ {,'])-$o([^a-zA-Z0-9-]|$)" "$2" || bad "$5 lacks -$o"
        grep -qE -- "(^|[ {,'(])-$o([^a-zA-Z0-9-]|$)" "$3" || bad "$6 lacks -$o"
    done
}
bashc=$root/completions/tlparse.bash zshc=$root/completions/_tlparse
"$bin" --help >"$tmp/help.txt"
options_of "$tmp/help.txt"
if [ "$(wc -w <<<"$longs")" -ge 20 ] && [ "$(wc -w <<<"$shorts")" -ge 6 ]; then ok; else
    bad "found only these options in --help: $longs $shorts"
fi
documented "$root/man/tlparse.1" "$bashc" "$zshc" man/tlparse.1 "$bashc" "$zshc"
# `tlparse diff --help`: in the man page's DIFF section, and in the completions' diff functions
"$bin" diff --help >"$tmp/diff_help.txt"
options_of "$tmp/diff_help.txt"
if [ "$(wc -w <<<"$longs")" -ge 6 ] && [ "$(wc -w <<<"$shorts")" -ge 2 ]; then ok; else
    bad "found only these options in diff --help: $longs $shorts"
fi
sed -n '/^\.SH DIFF$/,/^\.SH [^D]/p' "$root/man/tlparse.1" >"$tmp/man_diff"
sed -n '/^_tlparse_diff()/,/^}/p' "$bashc" >"$tmp/bash_diff"
sed -n '/^_tlparse_diff()/,/^}/p' "$zshc" >"$tmp/zsh_diff"
for f in man_diff bash_diff zsh_diff; do
    if [ "$(wc -l <"$tmp/$f")" -ge 10 ]; then ok; else bad "no diff part found for $f"; fi
done
documented "$tmp/man_diff" "$tmp/bash_diff" "$tmp/zsh_diff" "man/tlparse.1 (DIFF)" \
    "$bashc (_tlparse_diff)" "$zshc (_tlparse_diff)"
# the --fail-on kinds of diff --help (new-failures, ..., new, slower:PCT)
kinds=$(sed -n '/--fail-on/,/--no-browser/p' "$tmp/diff_help.txt" | grep -oE '\bnew(-[a-z]+)*\b|\bslower:' |
    LC_ALL=C sort -u)
if [ "$(wc -w <<<"$kinds")" -ge 6 ]; then ok; else bad "found only these --fail-on kinds in diff --help: $kinds"; fi
for k in $kinds; do
    grep -qF -- "$(printf '%s' "$k" | sed 's/-/\\-/g')" "$tmp/man_diff" ||
        bad "man/tlparse.1 (DIFF) does not document --fail-on $k"
    grep -qE -- "[\" ]$k([\" ]|\$)" "$tmp/bash_diff" || bad "$bashc (_tlparse_diff) lacks --fail-on $k"
    grep -qF -- "'${k%:}[" "$tmp/zsh_diff" || bad "$zshc (_tlparse_diff) lacks --fail-on $k"
done
# `tlparse-slurm --help`: each option in its man page
"$root/scripts/tlparse-slurm" --help >"$tmp/slurm_help.txt"
sopts=$(sed -n '/^Options:/,/^$/p' "$tmp/slurm_help.txt" | grep -oE '^  (-[a-zA-Z], )?-{1,2}[a-z][a-z-]*' |
    grep -oE -- '-{1,2}[a-z][a-z-]*')
if [ "$(wc -w <<<"$sopts")" -ge 10 ]; then ok; else bad "found only these options in tlparse-slurm --help: $sopts"; fi
for o in $sopts; do
    re="$(printf '%s' "$o" | sed 's/-/\\\\-/g')"'([^a-zA-Z0-9\\]|\\[^-]|$)'
    grep -qE -- "$re" "$root/man/tlparse-slurm.1" || bad "man/tlparse-slurm.1 does not document $o"
done
check "zsh -n _tlparse" zsh -n "$zshc"
same "zsh completion header" "$(head -n 1 "$zshc")" "#compdef tlparse"

# bash: source the installed file, call its function as bash would, list the candidates
complete_words() { # complete_words WORD...: the last word is the one being completed
    bash --norc --noprofile -c '
        source "$1" || exit 1
        shift
        COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
        "$(complete -p tlparse | sed "s/.*-F \([^ ]*\) .*/\1/")" tlparse "${COMP_WORDS[COMP_CWORD]}" \
            "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix/share/bash-completion/completions/tlparse" "$@" |
        LC_ALL=C sort | xargs
}
# with the default COMP_WORDBREAKS, bash splits "--fail-on=gr" into "--fail-on" "=" "gr"
same "complete --fail-on=gr" "$(complete_words tlparse --fail-on = gr)" graph-breaks
same "complete --fail-on=" "$(complete_words tlparse --fail-on =)" \
    "any eager export failures graph-breaks recompiles specializations"
same "complete --fail-on gr" "$(complete_words tlparse --fail-on gr)" graph-breaks
same "complete --fail-on=gr (unsplit)" "$(complete_words tlparse --fail-on=gr)" --fail-on=graph-breaks
same "complete --fail-on a list" "$(complete_words tlparse x.log --fail-on graph-breaks,re)" \
    graph-breaks,recompiles
same "complete --no-b" "$(complete_words tlparse --no-b)" --no-browser
same "complete --js" "$(complete_words tlparse demo.log --js)" --json
same "complete --s" "$(complete_words tlparse --s)" "--serve --strict --strict-compile-id --summary"
same "complete --run -" "$(complete_words tlparse --run -)" --
mkdir -p "$tmp/c/sub" && : >"$tmp/c/trace.log"
same "complete -o DIR" "$(complete_words tlparse -o "$tmp/c/")" "$tmp/c/sub"
same "complete PATH" "$(complete_words tlparse --summary "$tmp/c/tr")" "$tmp/c/trace.log"
same "complete --run -- CMD ARG" "$(complete_words tlparse --run -- python3 "$tmp/c/tr")" \
    "$tmp/c/trace.log"
# tlparse diff: the subcommand first, then its own options, --fail-on kinds and two sides
same "complete di" "$(cd "$tmp/c" && complete_words tlparse di)" diff
same "complete diff --s" "$(complete_words tlparse diff --s)" --summary
same "complete diff --fail-on new-g" "$(complete_words tlparse diff --fail-on new-g)" new-graph-breaks
same "complete diff --fail-on=" "$(complete_words tlparse diff --fail-on =)" \
    "new new-failures new-graph-breaks new-recompiles new-specializations slower:"
same "complete diff --fail-on a list" "$(complete_words tlparse diff --fail-on new,sl)" new,slower:
same "complete diff --fail-on slower:PCT" "$(complete_words tlparse diff --fail-on slower : 2)" ""
same "complete diff -o DIR" "$(complete_words tlparse diff -o "$tmp/c/")" "$tmp/c/sub"
same "complete diff BEFORE" "$(complete_words tlparse diff --json "$tmp/c/tr")" "$tmp/c/trace.log"
same "complete diff AFTER" "$(complete_words tlparse diff --fail-on slower : 20 a.log "$tmp/c/tr")" \
    "$tmp/c/trace.log"
same "complete diff: no third side" "$(complete_words tlparse diff a.log b.log "$tmp/c/tr")" ""

# --- the wheel, in a fresh venv
if make --no-print-directory -C "$root" wheel WHEEL_DIR="$tmp/wheel" >"$tmp/wheel.log" 2>&1; then
    ok
else
    bad "make wheel: $(tail -n 20 "$tmp/wheel.log")"
fi
# tagged manylinux_2_X, X the highest GLIBC_2.X symbol version the binary needs (as auditwheel
# computes it; here from readelf, there from the ELF read by scripts/build_wheel.py)
glibc=$(readelf -V "$root/${WHEEL_BUILD:-build-wheel}/tlparse" | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_2\.//' | sort -n | tail -1)
whl=$tmp/wheel/tlparse_c-$ver-py3-none-manylinux_2_${glibc}_$(uname -m).whl
exists "$whl"
[ -n "$glibc" ] && [ "$glibc" -le "$(getconf GNU_LIBC_VERSION | sed 's/.*2\.//')" ] ||
    bad "the wheel's glibc 2.$glibc against this system's $(getconf GNU_LIBC_VERSION)"
wheel_file=$(python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.read([n for n in z.namelist() if n.endswith(".dist-info/WHEEL")][0]).decode())' "$whl" 2>&1)
grep -qx "Tag: py3-none-manylinux_2_${glibc}_$(uname -m)" <<<"$wheel_file" ||
    bad "the wheel's WHEEL file does not say its manylinux tag: $wheel_file"
venv=$tmp/venv
if python3 -m venv "$venv" >"$tmp/venv.log" 2>&1; then ok; else
    bad "python3 -m venv failed (Debian package python3-venv): $(tail -n 5 "$tmp/venv.log")"
fi
check "pip install --no-index the wheel" "$venv/bin/python" -m pip install -q --no-index \
    --disable-pip-version-check "$whl"
if "$venv/bin/tlparse" --version >"$tmp/v" 2>&1 && grep -Eq "$version_re" "$tmp/v"; then ok; else
    bad "the venv's tlparse --version: $(cat "$tmp/v")"
fi
slurm_runs "the venv's" "$venv/bin"
same "the wheel's tlparse needs only glibc" \
    "$(readelf -d "$venv/bin/tlparse" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' |
        grep -Evx 'lib(c|m|pthread|dl|rt)\.so\.[0-9]+|ld-linux.*' | xargs)" ""
cat >"$tmp/wheel_check.py" <<'EOF'
import os
import sys

import tlparse_c

demo, out, venv = sys.argv[1:4]
assert tlparse_c.binary() == os.path.join(venv, "bin", "tlparse"), tlparse_c.binary()
s = tlparse_c.summary(demo)
assert s["schema"] == "tlparse-summary/1", s["schema"]
assert s["source"] == {"path": demo, "kind": "torch_trace"}, s["source"]
assert s["compile_ids"] == 5, s["compile_ids"]
counts = {k: len(s[k]) for k in ("graph_breaks", "recompiles", "specializations", "failures",
                                 "limits_hit", "export", "graphs")}
assert counts == {"graph_breaks": 1, "recompiles": 1, "specializations": 3, "failures": 1,
                  "limits_hit": 0, "export": 0, "graphs": 5}, counts
assert s["graph_breaks"][0]["compile_ids"] == ["[1/0]"], s["graph_breaks"][0]
assert s["graph_breaks"][0]["locations"] == ["/home/user/projects/demo/demo_model.py:25"]
assert s["recompiles"][0]["function"] == "forward", s["recompiles"][0]
assert s["cache"]["fx_graph"] == {"hit": 1, "miss": 4, "bypass": 0}, s["cache"]
assert s["findings"][0] == {"kind": "failure", "index": 0,
                           "category": "autotune_out_of_resources", "normal": False}, \
    s["findings"][0]
index = tlparse_c.report(demo, out=out)
assert index == os.path.join(os.path.abspath(out), "index.html") and os.path.isfile(index), index
assert os.path.isfile(os.path.join(out, "summary.json"))
index = tlparse_c.report(demo, out=out, plain_text=True)  # again: overwrite=True, a flag
assert os.path.isfile(index)
try:
    tlparse_c.summary(os.path.join(out, "no such log"))
    raise SystemExit("summary() of a missing file did not raise")
except tlparse_c.TlparseError as e:
    assert e.returncode == 1 and "tlparse: error" in e.stderr, (e.returncode, e.stderr)
print("ok")
EOF
same "tlparse_c in the venv" "$(cd "$tmp" && env -u PYTHONPATH "$venv/bin/python" \
    "$tmp/wheel_check.py" "$demo" "$tmp/pyout" "$venv" 2>&1)" ok

# --- the .debs, installed into a throwaway root by dpkg (against a copy of the host's
# package database, so the dependency check is real) and removed again
wait "$debpid"
debpid=
if [ "$(cat "$tmp/deb.rc" 2>/dev/null)" = 0 ]; then ok; else
    bad "make deb: $(tail -n 30 "$tmp/deb.log")"
fi
debs=("$tmp"/deb/tlparse_"$debver"_*.deb "$tmp"/deb/libtlparse1_"$debver"_*.deb
    "$tmp"/deb/libtlparse-dev_"$debver"_*.deb)
for d in "${debs[@]}"; do exists "$d"; done
R=$tmp/root
admin=$R/var/lib/dpkg
mkdir -p "$admin/info" "$admin/updates" "$admin/triggers"
cp /var/lib/dpkg/status "$admin/status"
cp /var/lib/dpkg/info/*.list "$admin/info/" # who owns /usr/bin and the rest
dpkg=(dpkg --root="$R" --force-script-chrootless --log=/dev/null)
[ "$(id -u)" = 0 ] || dpkg=(fakeroot "${dpkg[@]}") # files owned by root, in a folder of ours
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
if "${dpkg[@]}" -i "$tmp"/deb/libtlparse-dev_"$debver"_*.deb >"$tmp/dpkg.out" 2>&1; then
    bad "dpkg installed libtlparse-dev without libtlparse1"
elif grep -q 'libtlparse1' "$tmp/dpkg.out"; then ok; else
    bad "dpkg -i libtlparse-dev alone: $(cat "$tmp/dpkg.out")"
fi
check "dpkg -i the .debs" "${dpkg[@]}" -i "${debs[@]}"
status() { # the dpkg status of our packages in the root: "package:status ..."
    dpkg-query --admindir="$admin" -W -f='${Package}:${db:Status-Status}\n' \
        tlparse libtlparse1 libtlparse-dev 2>/dev/null | LC_ALL=C sort | xargs
}
same "dpkg status" "$(status)" "libtlparse-dev:installed libtlparse1:installed tlparse:installed"
for f in usr/bin/tlparse usr/bin/tlparse-slurm usr/share/man/man1/tlparse.1.gz \
    usr/share/man/man1/tlparse-slurm.1.gz \
    usr/share/bash-completion/completions/tlparse usr/share/zsh/vendor-completions/_tlparse \
    "usr/lib/$ma/libtlparse.so.$ver" "usr/lib/$ma/libtlparse.so.1" "usr/lib/$ma/libtlparse.so" \
    "usr/lib/$ma/libtlparse.a" "usr/lib/$ma/pkgconfig/tlparse.pc" usr/include/tlparse/tlparse.h \
    usr/include/tlparse/version.h \
    usr/share/doc/tlparse/copyright; do
    exists "$R/$f"
done
if "$R/usr/bin/tlparse" --version >"$tmp/v" 2>&1 && grep -Eq "$version_re" "$tmp/v"; then ok; else
    bad "the .deb's tlparse --version: $(cat "$tmp/v")"
fi
lint "$R/usr/share/man/man1/tlparse.1.gz"
lint "$R/usr/share/man/man1/tlparse-slurm.1.gz"
slurm_runs "the .deb's" "$R/usr/bin"
# shellcheck disable=SC2046
check "cc against libtlparse-dev" cc "${cflags[@]}" -o "$tmp/t_deb" "$tmp/t.c" \
    $(PKG_CONFIG_PATH="$R/usr/lib/$ma/pkgconfig" pkg-config --cflags --libs tlparse)
same "t_deb" "$(LD_LIBRARY_PATH="$R/usr/lib/$ma" "$tmp/t_deb" "$demo" "$tmp/out_deb" 2>/dev/null)" \
    "$ver $ver 0 1 0 $tmp/out_deb/index.html"
check "dpkg -r" "${dpkg[@]}" -r tlparse libtlparse-dev libtlparse1
same "dpkg status after -r (none left)" "$(status)" ""
same "files left in the root" "$(cd "$R" && find . -path ./var -prune -o \( -type f -o -type l \) -print)" ""
same "the host's package database" "$(md5sum </var/lib/dpkg/status)" "$host_status"

summary_line install "($((SECONDS - start)) s)"
