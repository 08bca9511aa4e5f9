#!/usr/bin/env bash
# Install everything the test suite needs, then run it. README's second command.
# System packages (Debian): chromium for the browser tests, a CJK font for screenshots,
# nginx for the reverse-proxy configuration in deploy/.
#
# Arguments go to pytest. The markers say what a test starts (tests/conftest.py marks tests
# by their fixtures, and fails a test of the fast tier that starts one of these unmarked):
#   kernel      a Jupyter kernel of the sandbox
#   subprocess  a shokunin server, worker or CLI process
#   browser     a real headless Chromium
#   postgres    the PostgreSQL server on 127.0.0.1:5432
#   slow        any of the above
# so `bash scripts/test.sh -m "not slow"` is the edit loop's tier, and `-m browser` the UI's.
# The 30 slowest tests are printed at the end, so that the next growth is seen. Two workers
# (pytest-xdist), each module on one of them so its servers and kernels start once: much of
# the suite waits on processes it started (pass -n 0 for one process).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  # fc-list read whole, then searched: piped into grep -q, it could be cut off by an early
  # match, fail the pipe under pipefail, and the fonts would be installed at every run
  fonts=$(fc-list 2>/dev/null || true)
  grep -i "noto sans cjk" <<<"$fonts" >/dev/null || missing+=(fonts-noto-cjk)
  grep -i "noto color emoji" <<<"$fonts" >/dev/null || missing+=(fonts-noto-color-emoji)
  command -v nginx >/dev/null || missing+=(nginx-light)  # deploy/nginx.conf, tested for real
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing system packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,postgres]'
# socket.io-client for tests/e2e/test_socketio_js_client.py. Without Node, or when the npm
# registry cannot be reached (a proxy's certificate Node does not trust: set
# NODE_EXTRA_CA_CERTS), that test is skipped with the reason; the rest still runs.
if command -v npm >/dev/null; then
  npm ci --prefix tests/js --no-audit --no-fund --loglevel=error >/dev/null \
    || echo "warning: npm ci failed (see above); the Node socket.io-client test will be skipped" >&2
fi
.venv/bin/python -m ruff check src tests bench
.venv/bin/lint-imports  # the layers and independence contracts in pyproject.toml
exec .venv/bin/python -m pytest -q -p no:cacheprovider --durations=30 -n 2 --dist loadfile "$@"
