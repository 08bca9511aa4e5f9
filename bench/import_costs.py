"""What each command imports before it does anything: ``python -X importtime`` of the CLI's
``--help``, of what ``shokunin analyze`` imports and of what ``shokunin serve`` imports, each
in a fresh interpreter, summed by top-level package (shokunin by sub-package), beside
``import typer`` and ``import pandas``.

    python bench/import_costs.py [--top 12]
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys

from rich.console import Console
from rich.table import Table

CASES = {
    "import typer (peer)": "import typer",
    "import pandas (peer)": "import pandas",
    "shokunin --help": "from shokunin.cli import app\ntry:\n    app(['--help'])\n"
                       "except SystemExit:\n    pass",
    "shokunin analyze": "from shokunin.cli import analyze\nimport shokunin.engine\n"
                        "import shokunin.agents.analyst.factory",
    "shokunin serve": "from shokunin.api import create_app\nimport shokunin.engine\n"
                      "import uvicorn",
}


def costs(code: str) -> tuple[float, collections.Counter[str]]:
    """Total self time of the imports (ms) and its sum by package."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          capture_output=True, text=True, check=True)
    by_package: collections.Counter[str] = collections.Counter()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line[len("import time:"):].split("|")
        parts = name.strip().split(".")
        package = ".".join(parts[:2]) if parts[0] == "shokunin" else parts[0]
        by_package[package] += int(own)
    return sum(by_package.values()) / 1000, by_package


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    table = Table(title=f"import self time by package, ms (load {os.getloadavg()[0]:.1f})")
    for column in ("what", "total ms", "modules' packages, most costly first"):
        table.add_column(column, justify="right" if column == "total ms" else "left")
    for label, code in CASES.items():
        total, by_package = costs(code)
        top = ", ".join(f"{name} {ms / 1000:.0f}" for name, ms in
                        by_package.most_common(args.top))
        table.add_row(label, f"{total:.0f}", top)
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
