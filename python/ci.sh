#!/usr/bin/env bash
# The Python package's CI: in a fresh virtual environment (temp dir) on the oldest
# supported Python found (3.9 first; override with PYTHON=...), install maturin and
# pytest, build the abi3 wheel in release mode, install it and run tests/ against it.
# The tests compare with the `bfopt` CLI's JSON: BFOPT_BIN, else target/{debug,release}/bfopt
# of this checkout, else tests/fixtures/cli.json.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
start=$SECONDS

python="${PYTHON:-}"
if [ -z "$python" ]; then
  # Oldest first; pyenv installs versions it does not put on PATH, so look there too.
  candidates=()
  for v in 3.9 3.10 3.11 3.12 3.13; do
    candidates+=("python$v")
    if command -v pyenv >/dev/null 2>&1; then
      for p in "$(pyenv root)"/versions/"$v".*/bin/python3; do
        [ -x "$p" ] && candidates+=("$p")
      done
    fi
  done
  for candidate in "${candidates[@]}" python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; assert sys.version_info >= (3, 9)' >/dev/null 2>&1; then
      python="$candidate"
      break
    fi
  done
fi
if [ -z "$python" ]; then
  echo "python/ci.sh: no Python >= 3.9 found" >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "== python/ci.sh: $("$python" --version) in a virtualenv under $tmp"
"$python" -m venv "$tmp/venv"
pip=("$tmp/venv/bin/python" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" install "maturin>=1.7,<2" pytest

echo "== maturin build --release"
(cd "$here" && "$tmp/venv/bin/maturin" build --release --interpreter "$tmp/venv/bin/python" --out "$tmp/wheels")
"${pip[@]}" install "$tmp"/wheels/bfopt-*.whl

echo "== pytest (against the installed wheel)"
# From the temp dir, so that `import bfopt` is the wheel, not python/bfopt/.
status=0
(cd "$tmp" && "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider "$here/tests") || status=$?
if [ "$status" -eq 5 ]; then
  echo "python/ci.sh: pytest collected no tests" >&2
  exit 1
fi
echo "== python/ci.sh: $((SECONDS - start)) s"
exit "$status"
