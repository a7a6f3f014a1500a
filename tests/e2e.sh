#!/usr/bin/env bash
# End-to-end browser tests of the HTML report (tests/e2e/): a hostile log is rendered and
# every page is opened in headless Chromium (Debian's /usr/bin/chromium, driven by
# playwright-core from npm). Usage: tests/e2e.sh BIN. Exit 77 (skip) when Chromium, node
# (>= 20), npm or python3 is missing; installs tests/e2e/node_modules with `npm ci` when it
# is missing or older than package-lock.json.
set -uo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 path/to/tlparse" >&2; exit 2; fi
bin=$1
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
cd "$(dirname "$0")/.." || exit 1
dir=tests/e2e
chromium=${CHROMIUM:-/usr/bin/chromium}

skip() { echo "SKIP: e2e: $*" >&2; exit 77; }
[ -x "$bin" ] || { echo "e2e: $bin is not an executable" >&2; exit 1; }
[ -x "$chromium" ] || skip "$chromium not found (Debian package chromium: scripts/deps.sh check)"
command -v node >/dev/null || skip "node not found (Debian package nodejs)"
command -v npm >/dev/null || skip "npm not found (it comes with nodejs >= 20)"
command -v python3 >/dev/null || skip "python3 not found"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$major" -ge 20 ] 2>/dev/null || skip "node $(node --version 2>/dev/null) is too old (playwright-core needs >= 20)"

# npm ci only when node_modules is missing or was installed from another lock file.
stamp=$dir/node_modules/.e2e-lock
if ! cmp -s "$dir/package-lock.json" "$stamp" || [ ! -d "$dir/node_modules/playwright-core" ]; then
    echo "e2e: npm ci --prefix $dir" >&2
    log=$(mktemp)
    if ! npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "e2e: npm ci failed" >&2
        exit 1
    fi
    rm -f "$log"
    cp "$dir/package-lock.json" "$stamp"
fi

TLPARSE_BIN=$bin CHROMIUM=$chromium node --test "$dir/"
