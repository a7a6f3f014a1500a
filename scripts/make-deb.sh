#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `make deb`: the tlparse, libtlparse1 and libtlparse-dev .debs in DEB_DIR (the folder is made
# anew), built by dpkg-buildpackage from the debian/ folder.
# Usage: scripts/make-deb.sh DEB_DIR VERSION    (run from the top of the source tree)
# dpkg-buildpackage writes its .debs into the parent of the tree it builds, so it builds a copy
# of the tree in DEB_DIR/src/tlparse-VERSION, and the .debs are moved up into DEB_DIR.
set -eu # (no pipefail: the copy is as good as the tar that unpacks it)
deb_dir=$1
version=$2
src="$deb_dir/src/tlparse-$version"
rm -rf "$deb_dir"
mkdir -p "$src"

# The copy: in a git checkout, the files git knows or would add (not what .gitignore leaves
# out, and no .git); elsewhere (a release tarball), everything but the build folders.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard |
        tar -cf - --null --ignore-failed-read -T - 2>/dev/null
else
    tar -cf - --exclude=./build --exclude='./build-*' --exclude=./tl_out --exclude=./bench/out .
fi | tar -xf - -C "$src"

# The copy has no .git: the source revision (for `tlparse --version` and the report's footer,
# cmake/Revision.cmake) goes into its REVISION file, "-dirty" when the tree had changes.
if rev=$(git rev-parse --short=12 HEAD 2>/dev/null); then
    git diff --quiet HEAD -- 2>/dev/null || rev="$rev-dirty"
    echo "$rev" >"$src/REVISION"
fi

# The build's output goes to a log; on failure its tail is shown.
if (cd "$src" && dpkg-buildpackage -b -us -uc -jauto) >"$deb_dir/build.log" 2>&1; then
    mv "$deb_dir"/src/*.deb "$deb_dir"/
    rm -rf "$deb_dir/src"
    ls "$deb_dir"/*.deb
else
    tail -n 40 "$deb_dir/build.log"
    echo "deb: failed, see $deb_dir/build.log" >&2
    exit 1
fi
