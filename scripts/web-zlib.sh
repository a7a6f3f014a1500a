#!/bin/sh
# Put Debian's zlib source (the version the system's zlib1g is built from) into DIR, for the
# WebAssembly build (make web), which compiles it with the engine. Uses apt-get source with a
# deb-src list and package lists of its own in a temporary folder: the system's apt
# configuration and lists are neither read for it nor changed. Does nothing when DIR/zlib.h
# exists.   scripts/web-zlib.sh DIR
set -eu
dir=${1:?usage: $0 DIR}
[ -f "$dir/zlib.h" ] && exit 0
. /etc/os-release
suite=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts" "$tmp/src"
cat >"$tmp/src.sources" <<EOT
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
set -- -q -o Dir::Etc::SourceList="$tmp/src.sources" -o Dir::Etc::SourceParts="$tmp/parts" \
    -o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" -o APT::Sandbox::User=root
echo "web-zlib: fetching Debian's zlib source into $dir" >&2
apt-get "$@" update >&2
(cd "$tmp/src" && apt-get "$@" source --download-only zlib >&2)
if command -v dpkg-source >/dev/null; then
    (cd "$tmp/src" && dpkg-source --no-check -x zlib_*.dsc zlib >&2) # Debian's patches applied
else
    mkdir "$tmp/src/zlib"
    tar -xf "$tmp"/src/zlib_*.orig.tar.* -C "$tmp/src/zlib" --strip-components=1
fi
mkdir -p "$(dirname "$dir")"
rm -rf "$dir"
mv "$tmp/src/zlib" "$dir"
