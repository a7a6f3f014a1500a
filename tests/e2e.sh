#!/usr/bin/env bash
# End-to-end browser tests of the HTML report (tests/e2e/): a hostile log is rendered and
# every page is opened in headless Chromium (Debian's /usr/bin/chromium), driven over its
# DevTools pipe by tests/e2e/cdp.py with Python's standard library only: no Node, no npm,
# no pip. Usage: tests/e2e.sh BIN. Never skips: a missing Chromium or python3 is a failure
# that names the Debian package to install (scripts/deps.sh check installs both).
# Env: CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1 keeps the temp folder.
set -uo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 path/to/tlparse" >&2; exit 2; fi
bin=$1
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
cd "$(dirname "$0")/.." || exit 1
chromium=${CHROMIUM:-/usr/bin/chromium}

missing() {
    echo "FAIL: e2e: $1 (on Debian: apt-get install $2, or scripts/deps.sh check)" >&2
    exit 1
}
[ -x "$bin" ] || { echo "FAIL: e2e: $bin is not an executable" >&2; exit 1; }
command -v python3 >/dev/null || missing "python3 not found" python3
[ -x "$chromium" ] || missing "$chromium not found" chromium

rc=0
for t in tests/e2e/test_*.py; do
    # the web page's test needs the page built: the web suite (tests/web.sh) runs it
    [ "$t" = tests/e2e/test_web.py ] && continue
    echo "== $t"
    TLPARSE_BIN=$bin CHROMIUM=$chromium python3 "$t" || rc=1
done
exit $rc
