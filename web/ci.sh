#!/usr/bin/env bash
# The page's CI: installs Debian's chromium and chromium-driver when absent, builds the
# page (build.sh), runs the crate's unit tests and the browser tests (e2e/) against the
# bfopt CLI. Called by .ci/run; run it from anywhere.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0

if ! command -v chromedriver >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
  echo "== apt-get install chromium chromium-driver"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium chromium-driver
fi

./build.sh

# The CLI whose JSON the page must reproduce: $BFOPT_BIN, else the workspace's debug build
# (already built by .ci/run's tests).
if [ -z "${BFOPT_BIN:-}" ]; then
  echo "== cargo build --bin bfopt (the workspace)"
  (cd .. && env -u CARGO_TARGET_DIR cargo build --bin bfopt)
  export BFOPT_BIN="$(cd .. && pwd)/target/debug/bfopt"
fi

echo "== unit tests (host)"
cargo test -p bfopt-web -p bfopt-web-e2e --lib
echo "== browser tests (headless Chromium)"
cargo test -p bfopt-web-e2e --test browser -- --test-threads=1 --nocapture
