#!/usr/bin/env bash
# The version is written once, in the file VERSION: everything that says it must agree with it.
#   the binary (tlparse --version), the Makefile's VERSION, the generated tlparse/version.h,
#   the man pages of the build tree (and the sources name it @PROJECT_VERSION@), tlparse.pc,
#   the Python package's __version__, and debian/changelog's newest entry (Debian's own record,
#   edited by hand at a release: VERSION-N).
# The build files, scripts, tests and sources write it out nowhere else (README.md's examples,
# the headers' doc comments and the test data aside): a bump stays one edit.
# Usage: tests/version.sh path/to/build/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # ok, bad, summary_line
bin=$(realpath "$1")
bdir=$(dirname "$bin")
root=$(cd "$here/.." && pwd)
new_tmp

ver=$(cat "$root/VERSION")
if [[ $ver =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then ok; else bad "VERSION holds '$ver', not MAJOR.MINOR.PATCH"; fi
major=${BASH_REMATCH[1]:-} minor=${BASH_REMATCH[2]:-} patch=${BASH_REMATCH[3]:-}
is() { # is WHAT GOT WANT
    if [ "$2" = "$3" ]; then ok; else bad "$1 says '$2', VERSION says '$3'"; fi
}

is "tlparse --version" "$("$bin" --version | sed -n 's/^tlparse \([^ ]*\).*/\1/p')" "$ver"
is "make's VERSION" "$(make --no-print-directory -s -C "$root" print-version)" "$ver"
h=$bdir/include/tlparse/version.h
is "version.h TL_VERSION_STRING" "$(sed -n 's/^#define TL_VERSION_STRING "\(.*\)"$/\1/p' "$h")" "$ver"
is "version.h MAJOR.MINOR.PATCH" "$(sed -n 's/^#define TL_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' "$h" |
    paste -sd.)" "$major.$minor.$patch"
for page in tlparse.1 tlparse-slurm.1; do
    is "build/man/$page" "$(sed -n 's/^\.TH .* "tlparse \([^"]*\)" .*/\1/p' "$bdir/man/$page")" "$ver"
    is "man/$page" "$(sed -n 's/^\.TH .* "tlparse \([^"]*\)" .*/\1/p' "$root/man/$page")" "@PROJECT_VERSION@"
done
if [ -f "$bdir/tlparse.pc" ]; then # (not in a TL_STATIC_DEPS build)
    is "tlparse.pc" "$(sed -n 's/^Version: //p' "$bdir/tlparse.pc")" "$ver"
fi
is "python tlparse_c.__version__" "$(cd "$tmp" && PYTHONPATH=$root/python python3 -c \
    'import tlparse_c; print(tlparse_c.__version__)')" "$ver"
deb=$(sed -n '1s/^tlparse (\([^)]*\)).*/\1/p' "$root/debian/changelog")
is "debian/changelog (without its -N)" "${deb%-*}" "$ver"

# Nowhere else in the build files, scripts, tests and sources: the golden trees say @VERSION@,
# the tests read VERSION (or TL_VERSION), the C code gets TL_VERSION from CMake.
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    stray=$(git -C "$root" grep -n -F "$ver" -- Makefile CMakeLists.txt cmake scripts python man \
        debian ':!debian/changelog' bench src/'*.c' 'tests/*.sh' 'tests/*.py' tests/unit tests/e2e \
        tests/golden)
    if [ -z "$stray" ]; then ok; else bad "the version is written out here too (read VERSION):"$'\n'"$stray"; fi
fi
summary_line version
