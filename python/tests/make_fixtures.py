"""Writes fixtures/cli.json from the `bfopt` CLI (see conftest.py for which binary).

Run from the repository after `cargo build --bin bfopt`: python python/tests/make_fixtures.py
"""

import json

from cases import FAMILY_CASES, INFEASIBLE, RECOMMEND, VALIDATE
from conftest import FIXTURES, cli_path, run_cli


def main():
    assert cli_path() is not None, "build the CLI first: cargo build --bin bfopt"
    out = {name: run_cli(flags)[0] for name, flags, _ in RECOMMEND}
    out["infeasible"] = run_cli(INFEASIBLE[0])[0]
    for name, verb, flags, _, _ in FAMILY_CASES:
        out[name] = run_cli(flags, verb)[0]
    out["validate"] = run_cli([*VALIDATE[0], "--validate", "--seed", "1"])[0]
    FIXTURES.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {FIXTURES} from {cli_path()}")


if __name__ == "__main__":
    main()
