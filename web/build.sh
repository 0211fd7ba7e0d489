#!/usr/bin/env bash
# Builds the page into web/dist/: the wasm32 release build of this crate, wasm-bindgen's
# `--target web` bindings and the static files of www/. Installs the wasm32-unknown-unknown
# target (rustup) and wasm-bindgen-cli at the version Cargo.lock pins (cargo install) when
# they are missing. Open the result with `python3 -m http.server -d web/dist` or any static host.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

if command -v rustup >/dev/null 2>&1; then
  rustup target list --installed | grep -qx wasm32-unknown-unknown \
    || rustup target add wasm32-unknown-unknown
fi

# wasm-bindgen-cli must be the exact version of the wasm-bindgen crate in Cargo.lock.
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }')" != "$version" ]; then
  echo "== installing wasm-bindgen-cli $version"
  # --locked first; if a crate of its lock file is no longer on the registry (yanked:
  # 0.2.130's webpki-roots 1.0.11 is), the same version without --locked. No default
  # features: they are the TLS stack (rustls, ring) of wasm-bindgen-test-runner's
  # downloads, which `wasm-bindgen` does not use (its output is byte-identical); 15% less
  # CPU to install (246 s against 289 s).
  cargo install wasm-bindgen-cli --version "$version" --no-default-features --locked \
    || cargo install wasm-bindgen-cli --version "$version" --no-default-features
fi

echo "== cargo build (wasm32-unknown-unknown, release)"
cargo build --release --target wasm32-unknown-unknown -p bfopt-web --lib

echo "== wasm-bindgen $version --target web"
rm -rf dist
mkdir -p dist/pkg
wasm-bindgen --target web --no-typescript --out-dir dist/pkg \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/bfopt_web.wasm"
cp www/* dist/
echo "built $(pwd)/dist ($(du -sh dist | cut -f1))"
