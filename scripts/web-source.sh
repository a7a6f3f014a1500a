#!/bin/sh
# Put Debian's source of PACKAGE (the version the system's library is built from: zlib for
# zlib1g, libzstd for libzstd1) into DIR, for the WebAssembly build (make web), which compiles
# it with the engine. Uses apt-get source with a deb-src list and package lists of its own in a
# temporary folder: the system's apt configuration and lists are neither read for it nor
# changed. Does nothing when DIR exists.   scripts/web-source.sh PACKAGE DIR
set -eu
pkg=${1:?usage: $0 PACKAGE DIR}
dir=${2:?usage: $0 PACKAGE DIR}
[ -d "$dir" ] && exit 0
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
echo "web-source: fetching Debian's $pkg source into $dir" >&2
apt-get "$@" update >&2
(cd "$tmp/src" && apt-get "$@" source --download-only "$pkg" >&2)
if command -v dpkg-source >/dev/null; then
    (cd "$tmp/src" && dpkg-source --no-check -x "$pkg"_*.dsc out >&2) # Debian's patches applied
else
    mkdir "$tmp/src/out"
    tar -xf "$tmp/src/$pkg"_*.orig.tar.* -C "$tmp/src/out" --strip-components=1
fi
mkdir -p "$(dirname "$dir")"
mv "$tmp/src/out" "$dir"
