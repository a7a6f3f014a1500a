#!/usr/bin/env bash
# The web page (tests/e2e/test_web.py): `make web` brings build-web/site/index.html up to date
# (it installs its packages and fetches Debian's zlib and libzstd sources the first time), then headless
# Chromium opens it from file:// and its reports are compared with BIN's --bundle.
# Usage: tests/web.sh BIN. Env: CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1.
set -uo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 path/to/tlparse" >&2; exit 2; fi
bin=$1
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
cd "$(dirname "$0")/.." || exit 1
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$bin" ] || { echo "FAIL: web: $bin is not an executable" >&2; exit 1; }
[ -x "$chromium" ] || { echo "FAIL: web: $chromium not found (scripts/deps.sh check)" >&2; exit 1; }
make --no-print-directory web >&2 || { echo "FAIL: web: make web failed" >&2; exit 1; }
TLPARSE_BIN=$bin CHROMIUM=$chromium TLPARSE_WEB_SITE=$PWD/build-web/site/index.html \
    python3 tests/e2e/test_web.py
