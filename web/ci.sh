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

# The CLI whose JSON the page must reproduce (the workspace's build; a no-op after .ci/run's tests).
echo "== cargo build --bin bfopt (the workspace)"
cargo build --manifest-path ../Cargo.toml --bin bfopt
export BFOPT_BIN="${BFOPT_BIN:-$(cd .. && pwd)/target/debug/bfopt}"

echo "== unit tests (host)"
cargo test -p bfopt-web -p bfopt-web-e2e --lib
echo "== browser tests (headless Chromium)"
cargo test -p bfopt-web-e2e --test browser -- --test-threads=1 --nocapture
