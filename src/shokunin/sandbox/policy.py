"""The AST policy: what model-written code may not even try, checked before it runs.

This is the first of three walls, and a lint rather than a boundary: it rejects, with the
line and a reason the model can act on, the ways out that are plain to see in the source:
forbidden imports, file and process access, dynamic code, introspection of dunder and frame
internals, attribute lookups hidden in format strings, I/O calls on absolute paths, and the
entry points of allowed packages that start processes, build or load native code, run
strings as code or unpickle (``ESCAPE_HATCHES``, found by ``tests/sandbox/escape_survey.py``).
It cannot see what a string turns into at run time, so the kernel also refuses processes and
native code from inside the interpreter (the audit hook of ``kernel_startup.py``) and runs
behind the OS wall of ``launcher.py`` (see README "The Python sandbox").
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass

# Modules that reach the OS, the interpreter or the network, refused even if allow-listed.
BLOCKED_MODULES = frozenset({
    "os", "sys", "subprocess", "socket", "shutil", "ctypes", "cffi", "importlib", "imp",
    "multiprocessing", "concurrent", "threading", "_thread", "signal", "pty", "tty", "termios",
    "fcntl", "resource", "posix", "nt", "pathlib", "glob", "fnmatch", "tempfile",
    "builtins", "__builtin__", "urllib", "http", "ftplib", "smtplib", "poplib", "imaplib",
    "telnetlib", "socketserver", "ssl", "select", "selectors", "asyncio", "requests", "httpx",
    "aiohttp", "urllib3", "pickle", "cPickle", "_pickle", "shelve", "dill", "cloudpickle",
    "joblib", "marshal", "inspect", "gc", "code", "codeop", "runpy", "pdb", "bdb", "trace",
    "traceback", "sysconfig", "site", "pkgutil", "zipimport", "webbrowser", "platform",
    "_io", "_os", "_socket", "_ctypes", "_sqlite3", "_imp", "_signal",
    "mmap", "pydoc", "atexit", "weakref", "faulthandler", "tracemalloc", "linecache",
    "zipfile", "tarfile", "gzip", "bz2", "lzma", "sqlite3", "dbm", "IPython", "ipykernel",
    "jupyter_client", "zmq", "tornado", "f2py", "ctypeslib", "distutils", "setuptools", "pip",
    "_posixsubprocess", "posixpath", "ntpath", "genericpath", "types", "copyreg",
    # DuckDB loads native extensions (LOAD 'file'), unsigned ones too if asked: native code
    # past the audit hook. The server reads large files with it; kernels use pandas.
    "duckdb", "_duckdb",
    # OpenSSL through cryptography (installed with the MCP SDK) can load providers and
    # engines from a path its configuration names: native code again. Kernels need neither.
    "cryptography", "_cffi_backend",
})

# Builtins that open files, run strings as code or hand out namespaces.
BLOCKED_BUILTINS = frozenset({
    "open", "__import__", "eval", "exec", "compile", "globals", "locals", "vars",
    "breakpoint", "input", "help", "exit", "quit", "memoryview", "get_ipython", "display_pub",
    "__builtins__", "__loader__", "__spec__", "__file__", "__IPYTHON__", "In", "Out",
    "_ih", "_oh", "_dh", "copyright", "credits", "license",
})

# Builtins that look an attribute up by a string: allowed only with a literal, public name.
NAMED_ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})

# Dunder attributes that ordinary analysis code needs and that lead nowhere.
SAFE_DUNDERS = frozenset({"__init__", "__name__", "__doc__", "__len__", "__version__"})

# Special methods a class in model code may define. Others are refused: some hand a library
# a raw pointer to read or write (__array_interface__, __dataframe__, __dlpack__).
DEFINABLE_DUNDERS = frozenset({
    "__init__", "__post_init__", "__repr__", "__str__", "__len__", "__iter__", "__next__",
    "__contains__", "__getitem__", "__setitem__", "__delitem__", "__call__", "__bool__",
    "__hash__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__enter__",
    "__exit__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
    "__truediv__", "__rtruediv__", "__floordiv__", "__mod__", "__pow__", "__neg__", "__pos__",
    "__abs__", "__and__", "__or__", "__xor__", "__invert__", "__matmul__", "__round__",
})

# Entry points of allowed packages that start a process, build or load native code, run a
# string as code or unpickle bytes (tests/sandbox/escape_survey.py lists them). Refused as
# module paths (import) and as names (from-import, attribute, getattr), wherever they hang.
ESCAPE_MODULES = frozenset({
    "matplotlib.testing", "matplotlib.sphinxext", "matplotlib.animation",
    "matplotlib.texmanager", "matplotlib.dviread", "matplotlib.backends.backend_pgf",
    "matplotlib.backends.backend_webagg", "matplotlib.backends.backend_webagg_core",
    "matplotlib.backends.backend_nbagg", "numpy.testing.extbuild", "numpy.lib.format",
    "pandas.io.clipboard", "pandas.io.clipboards", "pandas.compat.pickle_compat",
})
ESCAPE_HATCHES = frozenset({
    # processes: matplotlib.testing, numpy.testing, font discovery (fc-list), animation
    # writers (ffmpeg, ImageMagick), TeX, clipboards (xclip, pbcopy), platform probes
    "subprocess_run_for_testing", "subprocess_run_helper", "ipython_in_subprocess",
    "check_support_sve", "findSystemFonts", "get_fontconfig_fonts", "FontManager",
    "animation", "writers", "MovieWriter", "FFMpegWriter", "FFMpegFileWriter",
    "ImageMagickWriter", "ImageMagickFileWriter", "texmanager", "TexManager", "dviread",
    "clipboard", "clipboards", "switch_backend", "show_versions", "get_locales",
    # native code: building and importing a C extension
    "extbuild", "build_and_import_extension", "compile_extension_module",
    # strings run as code (computation: the machinery under DataFrame.query and eval, whose
    # Expr and Scope take an expression and namespaces without the checks of visit_Call)
    "runstring", "rundocs", "measure", "sphinxext", "render_figures", "run_code",
    "computation",
    # a package's pytest hooks (scipy.conftest sets multiprocessing's start method)
    "conftest",
    # unpickling (arbitrary code on load)
    "pickle_compat", "Unpickler", "read_array", "open_memmap",
    # files and URLs behind a computed path
    "get_handle", "urlopen", "get_sample_data",
})

# Attributes of frames, generators, coroutines, tracebacks and code objects, and methods
# that open files, run processes or evaluate strings, whatever object they hang on.
BLOCKED_ATTRIBUTES = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame",
    "ag_code", "ag_await", "f_globals", "f_locals", "f_builtins", "f_back", "f_code",
    "f_trace", "tb_frame", "tb_next", "co_code", "co_consts", "func_globals", "func_code",
    "mro", "_getframe", "open", "open_code", "FileIO", "system", "popen", "spawn", "fork",
    "read_pickle", "to_pickle", "read_clipboard", "to_clipboard", "format_map", "vformat",
    "Formatter", "get_field", "load_module", "exec_module", "modules", "settrace",
    "setprofile", "environ", "getenv", "putenv", "memmap", "DataSource", "tofile", "fromfile",
    "attrgetter", "methodcaller", "get_type_hints", "ForwardRef", "as_strided",
    # links and ownership: a link planted in the workspace could redirect a write made
    # later by the server (which may be root)
    "symlink_to", "hardlink_to", "link_to", "symlink", "link", "chmod", "lchmod", "chown",
    "lchown",
}) | BLOCKED_MODULES | ESCAPE_HATCHES

# A dunder identifier inside a string: code that some library may evaluate (annotations,
# DataFrame.query) or a name for a dynamic lookup (operator-style getters).
_DUNDER_IN_STRING = re.compile(r"__(?!main__|name__)\w+__")

# Library readers and writers whose first argument (or path keyword) is a file path.
IO_FUNCTIONS = frozenset({
    "read_csv", "read_table", "read_excel", "read_json", "read_parquet", "read_feather",
    "read_orc", "read_stata", "read_sas", "read_spss", "read_hdf", "read_fwf", "read_xml",
    "read_html", "read_sql", "to_csv", "to_excel", "to_json", "to_parquet", "to_feather",
    "to_orc", "to_stata", "to_hdf", "to_html", "to_xml", "to_markdown", "to_latex",
    "savefig", "imsave", "imread", "save", "savez", "savez_compressed", "savetxt", "load",
    "loadtxt", "genfromtxt", "fromregex", "dump", "ExcelWriter", "ExcelFile", "HDFStore",
    "read_sql_query", "read_sql_table", "Path", "PurePath", "PosixPath",
})
PATH_KEYWORDS = frozenset({"path", "path_or_buf", "filepath_or_buffer", "fname", "file",
                           "io", "excel_writer", "buf", "filename", "path_or_buffer", "con"})

# Settings that make a library start a process (TeX) or import a module named in a string
# (matplotlib and pandas backends), refused wherever they appear in a string.
_ESCAPE_IN_STRING = re.compile(r"usetex|module://|plotting\.backend")
# Keywords that unpickle (allow_pickle) or switch to such a setting, unless literally off.
_ESCAPE_KEYWORDS = {"allow_pickle": False, "usetex": False, "backend": "matplotlib"}
# Names a DataFrame.query / eval expression reads besides the frame's columns and '@name':
# objects handed in here are walked by the expression, which the checks above never see
# (issue 34: resolvers=[{'m': pd}] gave a cell sys.modules). Refused on any call.
_NAMESPACE_KEYWORDS = frozenset({"resolvers", "local_dict", "global_dict"})
# Methods that run a string as a pandas expression (DataFrame.query and DataFrame.eval;
# pandas.eval is refused outright). They may only be called as written, df.query('...'),
# where visit_Call checks the expression and the options: a reference to one (q =
# pd.DataFrame.query, partial(...), getattr(df, 'query')) can be called later with any
# arguments the checks never see (issue 47). Each with what to write instead:
EVALUATING_METHODS = {"query": "df.query('year == @y')", "eval": "df.eval('c = a + b')"}
# pandas methods that call a method named by a string (df.apply('query', args=(...))).
_DISPATCHERS = frozenset({"apply", "agg", "aggregate", "transform"})
# In a DataFrame.query expression, '@name' reads a variable; anything after it
# ('@pd.io.common.os.system(...)') would be evaluated, unseen by the checks above.
_QUERY_REFERENCE = re.compile(r"@\s*[A-Za-z_]\w*\s*[.(\[]")
# A `backticked` column name in such an expression (any characters but a backtick).
_BACKTICKED = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class PolicyViolation:
    """One refused construct: where it is and why it is refused."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


def check_policy(code: str, allowed_imports: Iterable[str]) -> list[PolicyViolation]:
    """Every violation in ``code``; a SyntaxError propagates (it is the code's own error)."""
    tree = ast.parse(code, mode="exec")
    checker = _Checker(frozenset(allowed_imports) - BLOCKED_MODULES)
    checker.visit(tree)
    return sorted(set(checker.violations), key=lambda v: (v.line, v.reason))


def _format_fields(template: str) -> list[str]:
    """Field names of a str.format template, nested ones too; none if it is malformed."""
    fields: list[str] = []
    try:
        for _, field, spec, _ in string.Formatter().parse(template):
            fields += [field] if field else []
            fields += _format_fields(spec) if spec and "{" in spec else []
    except ValueError:
        return []
    return fields


class _Checker(ast.NodeVisitor):
    def __init__(self, allowed: frozenset[str]) -> None:
        self.allowed = allowed
        self.violations: list[PolicyViolation] = []
        # Names of the pandas module: its usual ones (a kernel keeps an earlier cell's
        # imports) and what 'import pandas as ...' binds here.
        self.pandas_names = {"pd", "pandas"}

    def _refuse(self, node: ast.AST, reason: str) -> None:
        self.violations.append(PolicyViolation(getattr(node, "lineno", 0), reason))

    def _check_module(self, node: ast.AST, dotted: str) -> None:
        parts = dotted.split(".")
        if any(part in BLOCKED_MODULES for part in parts):
            self._refuse(node, f"import of '{dotted}' is not allowed (system access)")
        elif any(dotted == m or dotted.startswith(m + ".") for m in ESCAPE_MODULES) \
                or any(part in ESCAPE_HATCHES for part in parts):
            self._refuse(node, f"import of '{dotted}' is not allowed (it starts processes, "
                               "loads native code or runs strings as code)")
        elif any(part.startswith("_") for part in parts):
            self._refuse(node, f"import of '{dotted}' is not allowed (private module)")
        elif parts[0] not in self.allowed:
            self._refuse(node, f"import of '{dotted}' is not allowed (not in the allow-list: "
                               f"{', '.join(sorted(self.allowed))})")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)
            if alias.name == "pandas":
                self.pandas_names.add(alias.asname or alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self._refuse(node, "relative imports are not allowed")
            return
        self._check_module(node, node.module or "")
        for alias in node.names:
            if f"{node.module}.{alias.name}" in ESCAPE_MODULES:
                self._check_module(node, f"{node.module}.{alias.name}")
            elif alias.name == "*":
                self._refuse(node, f"'from {node.module} import *' is not allowed")
            elif alias.name in BLOCKED_ATTRIBUTES or alias.name in BLOCKED_BUILTINS \
                    or alias.name.startswith("_"):
                self._refuse(node, f"importing '{alias.name}' is not allowed")

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in BLOCKED_BUILTINS:
            self._refuse(node, f"'{name}' is not allowed (file, code or namespace access)")
        elif name in NAMED_ATTRIBUTE_BUILTINS:
            # Reached only when not called directly (visit_Call skips the callee).
            self._refuse(node, f"'{name}' may only be called with a literal attribute name")
        elif name.startswith("__") and name != "__name__":
            self._refuse(node, f"the name '{name}' is not allowed (interpreter internals)")
        elif name.startswith("_shokunin"):
            self._refuse(node, f"the name '{name}' belongs to the sandbox")

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name.startswith("__") and node.name not in DEFINABLE_DUNDERS:
            self._refuse(node, f"defining '{node.name}' is not allowed (interpreter or "
                               "buffer protocol)")
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("_") and attr not in SAFE_DUNDERS:
            self._refuse(node, f"access to '{attr}' is not allowed (private or interpreter "
                               "internals)")
        elif attr in BLOCKED_ATTRIBUTES:
            self._refuse(node, f"access to '.{attr}' is not allowed (system or frame access)")
        elif attr in EVALUATING_METHODS:
            # Reached only when not called directly (visit_Call skips such a callee).
            self._refuse(node, f"'.{attr}' may only be called directly, not used as a value: "
                               f"call {EVALUATING_METHODS[attr]} with a literal expression")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if node.value in _NAMESPACE_KEYWORDS:  # {'resolvers': ...} passed with '**'
            self._refuse(node, f"the name {node.value!r} is not allowed (it hands an "
                               "expression names the sandbox cannot check)")
        elif isinstance(node.value, str) and _DUNDER_IN_STRING.search(node.value):
            self._refuse(node, "strings naming interpreter internals are not allowed: "
                               f"{_DUNDER_IN_STRING.search(node.value).group()!r}")
        elif isinstance(node.value, str) and _ESCAPE_IN_STRING.search(node.value):
            self._refuse(node, f"the setting {_ESCAPE_IN_STRING.search(node.value).group()!r} "
                               "is not allowed (it starts a process or imports a module)")
        # A template can hide an attribute walk ("{0.real.imag}") from the checks above.
        elif isinstance(node.value, str) and "{" in node.value:
            for field in _format_fields(node.value):
                if "__" in field or "." in field:
                    self._refuse(node, "format fields with attribute access are not allowed: "
                                       f"'{{{field}}}'")
                    break

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in NAMED_ATTRIBUTE_BUILTINS:
            self._check_named_attribute(node, func.id)
        elif isinstance(func, ast.Attribute) and func.attr in EVALUATING_METHODS:
            self.visit(func.value)  # the method itself is checked as a call, below
            self._check_evaluation(node, func)
        else:
            self.visit(func)
        if isinstance(func, ast.Attribute):
            if func.attr == "format" and not isinstance(func.value, ast.Constant | ast.Attribute):
                self._refuse(node, "'.format' is only allowed on a literal template "
                                   "(a computed template can read attributes)")
            if func.attr in IO_FUNCTIONS:
                self._check_paths(node, func.attr)
            if func.attr in _DISPATCHERS:
                self._check_dispatch(node, func.attr)
        elif isinstance(func, ast.Name) and func.id in IO_FUNCTIONS:
            self._check_paths(node, func.id)
        if not isinstance(func, ast.Attribute):
            # A callee the policy cannot name may be an alias of DataFrame.query made where
            # it cannot see (issue 47): a '**' dict written here must show its keywords.
            for keyword in node.keywords:
                if keyword.arg is None and not _shows_keys(keyword.value):
                    self._refuse(node, "'**' with computed keys is not allowed here: write "
                                       "the keywords (f(a=1) or f(**{'a': 1}))")
        for keyword in node.keywords:
            if keyword.arg in _NAMESPACE_KEYWORDS:
                self._refuse(node, f"'{keyword.arg}=' is not allowed: the expression would "
                                   "read names the sandbox cannot check; pass values as "
                                   "'@name' (df.query('year == @y'))")
            if keyword.arg in _ESCAPE_KEYWORDS and not (
                    isinstance(keyword.value, ast.Constant)
                    and keyword.value.value == _ESCAPE_KEYWORDS[keyword.arg]):
                self._refuse(node, f"'{keyword.arg}=' may only be "
                                   f"{_ESCAPE_KEYWORDS[keyword.arg]!r} in the sandbox")
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            self.visit(arg)

    def _check_evaluation(self, node: ast.Call, func: ast.Attribute) -> None:
        """A call of DataFrame.query or eval: a literal expression, checked as code, and no
        option that hands it other names (resolvers= is refused on any call)."""
        name, example = func.attr, EVALUATING_METHODS[func.attr]
        if name == "eval" and isinstance(func.value, ast.Name) \
                and func.value.id in self.pandas_names:
            # pandas.eval reads every variable of the cell (get_ipython too) by bare name.
            self._refuse(node, f"'{func.value.id}.eval' is not allowed: call {example} on "
                               "the DataFrame, which reads only its columns and '@name'")
        expr = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "expr"), None)
        if len(node.args) > 1 or any(isinstance(a, ast.Starred) for a in node.args):
            # pandas.eval takes local_dict, resolvers and level by position too
            self._refuse(node, f"'.{name}' takes one expression; pass options by keyword "
                               "(engine='python')")
        if not (isinstance(expr, ast.Constant) and isinstance(expr.value, str)):
            self._refuse(node, f"'.{name}' needs a literal expression; pass values as "
                               f"'@name' ({example})")
        elif _QUERY_REFERENCE.search(expr.value):
            self._refuse(node, f"'.{name}' may only read plain variables with '@name', not "
                               f"'{_QUERY_REFERENCE.search(expr.value).group()}...'")
        else:
            self._check_expression(node, name, expr.value)
        for keyword in node.keywords:
            if keyword.arg is None or keyword.arg == "level":  # **options; other frames' names
                self._refuse(node, f"'.{name}' takes no '**' options and no 'level=': its "
                                   "expression reads the cell's '@name' variables only")

    def _check_expression(self, node: ast.Call, name: str, expr: str) -> None:
        """Check the expression as the code it is: pandas walks its attributes and calls
        what it names (pd.eval("pd.io.common.os.system('id')")), unseen by the rest."""
        tree = _expression_tree(expr)
        if tree is None:
            self._refuse(node, f"the expression of '.{name}' must be a pandas expression "
                               f"({EVALUATING_METHODS[name]})")
            return
        inner = _Checker(self.allowed)
        inner.visit(tree)
        for violation in inner.violations:
            self._refuse(node, f"in the expression of '.{name}': {violation.reason}")

    def _check_dispatch(self, node: ast.Call, method: str) -> None:
        """df.apply('query', ...) calls df.query by name, with the keywords it is given."""
        named = node.args[:1] + [k.value for k in node.keywords if k.arg == "func"]
        for value in (s for arg in named for s in _strings(arg)):
            if value in EVALUATING_METHODS:
                self._refuse(node, f"'.{method}' may not call '{value}' by name: call "
                                   f"{EVALUATING_METHODS[value]} directly")

    def _check_named_attribute(self, node: ast.Call, name: str) -> None:
        target = node.args[1] if len(node.args) > 1 else None
        if not (isinstance(target, ast.Constant) and isinstance(target.value, str)):
            self._refuse(node, f"'{name}' may only be called with a literal attribute name")
        elif target.value.startswith("_") or target.value in BLOCKED_ATTRIBUTES:
            self._refuse(node, f"'{name}' on '{target.value}' is not allowed")
        elif target.value in EVALUATING_METHODS:
            self._refuse(node, f"'{name}' on '{target.value}' is not allowed: call "
                               f"{EVALUATING_METHODS[target.value]} directly")

    def _check_paths(self, node: ast.Call, func: str) -> None:
        candidates = node.args[:1] + [k.value for k in node.keywords if k.arg in PATH_KEYWORDS]
        for arg in candidates:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str | bytes):
                path = arg.value.decode(errors="replace") if isinstance(arg.value, bytes) \
                    else arg.value
                if _escapes_workspace(path):
                    self._refuse(node, f"'{func}' may only use relative paths inside the "
                                       f"workspace, not '{path}'")


def _shows_keys(mapping: ast.expr) -> bool:
    """Whether a '**' argument written as a dict shows every key as a literal string (a
    comprehension does not; a variable, as in plt.plot(x, **style), is not written here)."""
    if isinstance(mapping, ast.DictComp):
        return False
    if not isinstance(mapping, ast.Dict):
        return True
    return all(_shows_keys(value) if key is None  # {**base, 'a': 1}
               else isinstance(key, ast.Constant) and isinstance(key.value, str)
               for key, value in zip(mapping.keys, mapping.values, strict=True))


def _strings(node: ast.expr) -> Iterable[str]:
    """The literal strings of a function argument: 'sum', ['sum', 'max'], {'a': 'sum'}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.List | ast.Tuple | ast.Set):
        for item in node.elts:
            yield from _strings(item)
    elif isinstance(node, ast.Dict):
        for item in node.values:
            yield from _strings(item)


def _expression_tree(expr: str) -> ast.Module | None:
    """A pandas expression as Python, as pandas parses it: '@name' is the variable, a
    `backticked` name a column, and each non-blank line a statement (df.eval assigns);
    None if it is not Python then."""
    source = _BACKTICKED.sub("backticked_column", expr).replace("@", "")
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    try:
        return ast.parse("\n".join(lines), mode="exec")
    except (SyntaxError, ValueError):  # ValueError: a NUL character
        return None


def _escapes_workspace(path: str) -> bool:
    if "://" in path:
        return True  # URLs: no network in the sandbox, and file:// is a path in disguise
    parts = path.replace("\\", "/").split("/")
    return path.startswith(("/", "~", "\\")) or ".." in parts or ":" in parts[0]
