"""Run inside each kernel at start (IPKernelApp.exec_files), never in the server.

It makes rich outputs machine-readable (tables as Markdown, JSON-able values as JSON),
sets a Japanese-capable plot font, caps what a cell can write to stdout/stderr so a huge
print never reaches the server, and leaves two entry points for the server's own code.
User code cannot name them: the policy refuses any name starting with ``_shokunin``.
It also wraps pandas' expression evaluation so that no spelling hands an expression names
the policy never checked (``_shokunin_guard_pandas``).

Last, it installs the second wall (``_shokunin_wall``): an audit hook that, from then on,
refuses what reaches past Python even when code got past the policy.
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


def _shokunin_guard_pandas() -> None:
    """Refuse what hands a pandas expression names, however the entry point was reached.

    DataFrame.query, DataFrame.eval and pandas.eval evaluate a string that walks attributes
    and calls what it names. The policy checks the calls it sees; reached another way
    (df.apply('query', ...), a '**' it cannot read), resolvers=, local_dict=, global_dict=
    or level= would hand the expression any object (issue 47: sys.modules). Each entry point
    is wrapped: those options are refused unless pandas passes them on from a call wrapped
    here, and so is a call from pandas' own code (df.apply('query')), whose variables
    '@name' would read. Each wrapper is one more frame, so it adds one to the level pandas
    reads '@name' variables from.
    """
    import sys
    from collections.abc import Callable

    import pandas as pd
    import pandas.core.computation.api as api
    import pandas.core.computation.eval as evaluation
    from pandas.core.computation.expr import BaseExprVisitor
    from pandas.core.computation.ops import BinOp

    options = ("resolvers", "local_dict", "global_dict", "level")

    def guard(function: Callable, name: str, positional: int, trusted: set) -> Callable:
        def guarded(*args: object, **kwargs: object) -> object:
            caller = sys._getframe(1)
            if caller.f_code not in trusted:
                given = [f"{k}=" for k in options if k in kwargs] + (
                    ["options by position"] if len(args) > positional else [])
                if given:
                    raise PermissionError(
                        f"{name} with {', '.join(given)} is not allowed in the sandbox (it "
                        "hands the expression names the sandbox cannot check); pass values "
                        "as '@name': df.query('year == @y')")
                if caller.f_globals.get("__name__", "").startswith("pandas."):
                    raise PermissionError(
                        f"{name} called from pandas' own code (as by df.apply('query')) is "
                        "not allowed in the sandbox; call it directly: df.query('year == @y')")
            kwargs["level"] = kwargs.get("level", 0) + 1
            return function(*args, **kwargs)

        guarded.__name__, guarded.__qualname__ = function.__name__, function.__qualname__
        guarded.__doc__, guarded.__module__ = function.__doc__, function.__module__
        return guarded

    query, frame_eval, top_eval = pd.DataFrame.query, pd.DataFrame.eval, evaluation.eval
    pd.DataFrame.query = guard(query, "DataFrame.query", 2, set())
    # query passes its checked options on to self.eval; DataFrame.eval and pandas' own
    # expression nodes (subscripts, binary operations) pass theirs to pandas.eval.
    pd.DataFrame.eval = guard(frame_eval, "DataFrame.eval", 2, {query.__code__})
    guarded_eval = guard(top_eval, "pandas.eval", 3, {
        frame_eval.__code__, BaseExprVisitor.visit_Subscript.__code__,
        BinOp.evaluate.__code__})
    pd.eval = api.eval = evaluation.eval = guarded_eval


def _shokunin_wall() -> None:
    """Refuse processes, native code, sub-interpreters, raw memory and sockets from now on.

    An audit hook cannot be removed once added, and sees the C-level events of CPython
    (docs.python.org/3/library/audit_events.html), so it holds for code the AST policy
    missed. It is not the boundary (interpreter bugs can defeat it); the OS wall is.
    """
    import os
    import re
    import sys

    if os.environ.get("SHOKUNIN_SANDBOX_AUDIT") == "off":
        return  # only for tests of the OS wall on its own
    what = {
        "subprocess.Popen": "starting a process", "os.system": "starting a process",
        "os.exec": "starting a program", "os.posix_spawn": "starting a process",
        "os.spawn": "starting a process", "os.fork": "forking the kernel",
        "os.forkpty": "forking the kernel", "os.startfile": "starting a program",
        "pty.spawn": "starting a process",
        "ctypes.dlopen": "loading a native library", "ctypes.dlsym": "loading native code",
        "ctypes.dlsym/handle": "loading native code", "ctypes.call_function": "calling native "
        "code", "ctypes.cdata": "reading raw memory", "ctypes.string_at": "reading raw memory",
        "ctypes.wstring_at": "reading raw memory", "ctypes.PyObj_FromPtr": "reading raw memory",
        "cpython.PyInterpreterState_New": "starting a sub-interpreter",
        "socket.connect": "opening a connection", "socket.bind": "opening a socket",
        "socket.sendto": "sending on the network",
    }
    # Extension modules that start processes, load native code or open connections in C,
    # without an audit event (tests/sandbox/escape_survey.py lists the candidates).
    native = re.compile(r"(_posixsubprocess|_ctypes|_cffi_backend|uvloop|_xxsubinterpreters"
                        r"|_xxinterpchannels|_interpreters|_test\w*|psycopg_binary|psycopg_c"
                        r"|psycopg2|_?duckdb|cryptography)(\.|$)")
    own_memory = re.compile(r"/proc/(self|thread-self|\d+)(/task/\d+)?/mem")
    roots = tuple({os.path.realpath(p) + os.sep for p in (
        sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)})

    def refuse(doing: str, detail: object) -> None:
        raise PermissionError(f"{doing} is not allowed in the sandbox ({detail}); "
                              "do the work in Python with the allowed libraries")

    def hook(event: str, args: tuple) -> None:
        if event in what:
            refuse(what[event], f"{event} {str(args[:2])[:120]}")
        elif event == "import" and (native.match(args[0]) or args[1] is not None and not (
                os.path.realpath(args[1]).startswith(roots))):
            refuse("loading native code", f"import {args[0]} from {args[1]}")
        elif event == "open" and not isinstance(args[0], int):  # an int is an open fd
            path = os.fsdecode(os.fspath(args[0]))
            # A relative "mem" may be meant relative to a dir_fd, which the event omits.
            if own_memory.fullmatch(os.path.realpath(path)) or (
                    not os.path.isabs(path) and os.path.basename(path) == "mem"):
                refuse("opening the process's memory", path)

    # subprocess and multiprocessing call _posixsubprocess.fork_exec, which raises no event
    # of its own: every reference to it is swapped for a refusal before the hook goes in.
    import _posixsubprocess

    fork_exec = _posixsubprocess.fork_exec

    def refused_fork_exec(*_args: object, **_kwargs: object) -> None:
        refuse("starting a process", "fork_exec")

    # A kernel forked from the template (zygote.py) gets the references the template found
    # in the modules it imported, and reads only those imported since: reading an object
    # writes its reference count, which would copy the template's pages into the kernel.
    scanned, holders = getattr(sys, "_shokunin_template", (frozenset(), ()))
    for module_name, name in holders:
        if module_name in sys.modules:
            setattr(sys.modules[module_name], name, refused_fork_exec)
    for module_name in [m for m in sys.modules if m not in scanned]:
        module = sys.modules[module_name]
        for name, value in list(getattr(module, "__dict__", {}).items()):
            if value is fork_exec:
                setattr(module, name, refused_fork_exec)
    sys.addaudithook(hook)


_shokunin_setup()
_shokunin_guard_pandas()
_shokunin_wall()
del _shokunin_setup, _shokunin_guard_pandas, _shokunin_wall
