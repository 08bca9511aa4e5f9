"""Run inside each kernel at start (IPKernelApp.exec_files), never in the server.

It makes rich outputs machine-readable (tables as Markdown, JSON-able values as JSON),
sets a Japanese-capable plot font, caps what a cell can write to stdout/stderr so a huge
print never reaches the server, and leaves two entry points for the server's own code.
User code cannot name them: the policy refuses any name starting with ``_shokunin``.
"""

# ruff: noqa: F821  (get_ipython is a builtin inside the kernel)
from __future__ import annotations

import json as _shokunin_json


def _shokunin_setup() -> None:
    import os
    import sys

    import matplotlib
    import matplotlib.pyplot  # noqa: F401  (imported here so a cell's first plot is quick)
    import pandas as pd

    try:
        import matplotlib_fontja  # noqa: F401  (adds its bundled IPAexGothic, selects it)
    except ImportError:  # fall back to any installed CJK font
        matplotlib.rcParams["font.family"] = ["Noto Sans CJK JP", "IPAexGothic", "sans-serif"]
    else:
        # Notebooks often say `import japanize_matplotlib` (the unmaintained package this
        # one forked, which needs distutils): same effect, so let it name this one.
        sys.modules.setdefault("japanize_matplotlib", matplotlib_fontja)
    matplotlib.rcParams["axes.unicode_minus"] = False

    ip = get_ipython()
    ip.InteractiveTB.set_mode("Plain")
    ip.colors = "nocolor"
    formatters = ip.display_formatter.formatters
    formatters["text/markdown"].for_type(pd.DataFrame, _shokunin_markdown)
    formatters["text/markdown"].for_type(pd.Series, lambda s: _shokunin_markdown(s.to_frame()))
    for kind in (dict, list):
        formatters["application/json"].for_type(kind, _shokunin_jsonable)

    cap = int(os.environ.get("SHOKUNIN_OUTPUT_CAP", "400000"))
    written = {"n": 0}
    ip.events.register("pre_execute", lambda: written.update(n=0))
    # IPython keeps every cell's output for its history; a kernel that printed 100 MB once
    # would hold it for good.
    ip.events.register("post_execute", ip.history_manager.outputs.clear)
    for stream in (sys.stdout, sys.stderr):
        stream.write = _shokunin_capped(stream.write, written, cap)


def _shokunin_capped(write, written: dict, cap: int):  # noqa: ANN001, ANN202
    """Drop what a cell writes beyond ``cap`` characters (the server cuts precisely)."""

    def capped_write(text: str) -> int:
        room = cap - written["n"]
        written["n"] += len(text)
        if room > 0:
            write(text[:room])
        return len(text)

    return capped_write


def _shokunin_markdown(df, max_rows: int = 60) -> str:  # noqa: ANN001
    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    shown = df.head(max_rows)
    names = [cell(n) for n in shown.index.names] if any(shown.index.names) else [""]
    rows = ["| " + " | ".join(names + [cell(c) for c in shown.columns]) + " |",
            "|" + "---|" * (len(names) + len(shown.columns))]
    for index, values in zip(shown.index, shown.itertuples(index=False), strict=True):
        keys = index if isinstance(index, tuple) else (index,)
        rows.append("| " + " | ".join([cell(k) for k in keys] + [cell(v) for v in values]) + " |")
    if len(df) > max_rows:
        rows.append(f"\n({len(df)} rows × {len(df.columns)} columns, first {max_rows} shown)")
    return "\n".join(rows)


def _shokunin_jsonable(value: object) -> object:
    try:
        return _shokunin_json.loads(_shokunin_json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        return None


def _shokunin_enter(workspace: str) -> None:
    """Move into the thread's workspace (server-issued, once per thread)."""
    import os

    os.chdir(workspace)
    os.environ["HOME"] = workspace


def _shokunin_context(path: str) -> None:
    """Set the variables the server wrote to ``path`` (JSON; DataFrames as table JSON; the
    server removes the file)."""
    import io

    with open(path, encoding="utf-8") as f:
        payload = _shokunin_json.load(f)
    values = payload["values"]
    if payload["frames"]:
        import pandas as pd

        for name, text in payload["frames"].items():
            values[name] = pd.read_json(io.StringIO(text), orient="table")
    get_ipython().user_ns.update(values)


def _shokunin_reap(pids: list) -> None:
    """Collect the processes the server killed after stopping a cell (its forks): until
    their parent, this kernel, waits for them they hold its process slots."""
    import os
    import time

    left, deadline = set(pids), time.monotonic() + 2
    while left and time.monotonic() < deadline:
        for pid in list(left):
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    left.discard(pid)
            except ChildProcessError:  # not (or no longer) a child of the kernel
                left.discard(pid)
        time.sleep(0.01)


_shokunin_setup()
del _shokunin_setup
