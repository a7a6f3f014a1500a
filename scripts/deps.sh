#!/bin/sh
# Install the Debian packages a target needs, if any are missing.
#   scripts/deps.sh build   what `make` and `make demo` need
#   scripts/deps.sh test    what `make test` needs as well (the unit tests' libraries)
#   scripts/deps.sh check   what `make check` needs as well
#   scripts/deps.sh bench   what `make bench` needs as well
#   scripts/deps.sh deb     what `make deb` needs as well (the Debian tooling)
#   scripts/deps.sh wheel   what `make wheel` needs as well
#   scripts/deps.sh web     what `make web` needs as well (clang for wasm32-wasi, wasi-libc)
# Uses apt-get (through sudo when not root). Does nothing when all are present.
set -eu
want="gcc make cmake ninja-build pkg-config libmd-dev zlib1g-dev libzstd-dev"
case "${1:-build}" in
build) ;;
test) want="$want libcmocka-dev libjson-c-dev python3 zstd gzip unzip" ;; # unzip: test_zip reads an archive as users do
check)
    want="$want clang clang-format libcmocka-dev libjson-c-dev python3 libclang-rt-14-dev zstd gzip unzip"
    # The browser tests drive Chromium over its DevTools pipe from Python: no Node needed.
    want="$want chromium fonts-noto-color-emoji"
    # tests/watch.sh: the live screen of --watch, read from a terminal tmux draws
    want="$want tmux"
    # tests/slurm.sh: tlparse-slurm under a real Slurm of two nodes that the suite starts and
    # stops itself, with its own config and key (it uses no service of the system)
    want="$want munge slurmctld slurmd slurm-client"
    # tests/install.sh: make install, pkg-config and a C program against libtlparse, the
    # man page's lint, the completions, the .debs (built, installed into a throwaway root
    # with dpkg) and the wheel (in a fresh venv).
    want="$want binutils man-db groff-base zsh build-essential debhelper dpkg-dev fakeroot python3-venv"
    ;;
bench) want="$want python3 python3-venv time valgrind hyperfine procps" ;; # the venv: the reference from PyPI; procps: pkill (bench/watch_grow.sh)
fuzz) want="$want clang libclang-rt-14-dev" ;;
deb) want="$want build-essential debhelper dpkg-dev fakeroot" ;; # dpkg-checkbuilddeps wants build-essential
wheel) want="$want python3 binutils" ;;
# The engine compiled to WebAssembly: clang's wasm32 target, its linker and builtins, WASI's
# libc; llvm's ar and ranlib index its archives; dpkg-dev unpacks Debian's zlib and
# libzstd sources (scripts/web-source.sh) with its patches.
web) want="$want clang lld llvm wasi-libc libclang-rt-14-dev-wasm32 python3 dpkg-dev" ;;
*) echo "usage: $0 build|test|check|bench|fuzz|deb|wheel|web" >&2; exit 2 ;;
esac
missing=
for p in $want; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# munge's postinst makes its key as the user munge (su munge -c mungekey), which cannot run
# where / is closed to other users (a root unpacked from a tar of a mktemp folder, 0700, as
# ../shared/tools/fresh-debian's is): there, make the key first, as it would (128 random
# bytes; the postinst then gives it to munge)
case " $missing " in
*" munge "*)
    if [ ! -e /etc/munge/munge.key ] && [ "$(stat -c %A / | cut -c10)" != x ]; then
        $sudo mkdir -p -m 0700 /etc/munge
        $sudo sh -c 'umask 077 && head -c 128 /dev/urandom >/etc/munge/munge.key'
    fi
    ;;
esac
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >&2
