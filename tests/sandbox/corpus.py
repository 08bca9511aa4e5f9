"""Hostile snippets. BLOCKED must never run; CONTAINED run past the policy (as if it had a
hole) and must still do no harm; HOOKED run past the policy and must be refused by the audit
hook inside the kernel (the second wall). Each CONTAINED check gets the ExecResult."""

from __future__ import annotations

from collections.abc import Callable

from shokunin.sandbox import ExecResult

BLOCKED: dict[str, str] = {
    # links planted for a later write by the server
    "symlink-via-pandas-path": "import pandas as pd\n"
                               "pd.io.common.Path('r.csv').symlink_to('/tmp/x')",
    "hardlink-via-path": "import pandas as pd\n"
                         "pd.io.common.Path('r.csv').hardlink_to('/etc/passwd')",
    "chmod-via-path": "import pandas as pd\npd.io.common.Path('.').chmod(0o777)",
    # import tricks
    "import-os": "import os\nos.system('id')",
    "import-subprocess": "import subprocess\nsubprocess.run(['id'])",
    "from-os-import": "from os import system\nsystem('id')",
    "import-os-path-alias": "import os.path as p",
    "import-socket": "import socket\nsocket.create_connection(('1.1.1.1', 80))",
    "import-shutil": "import shutil\nshutil.rmtree('/')",
    "import-ctypes": "import ctypes\nctypes.CDLL(None).system(b'id')",
    "import-importlib": "import importlib\nimportlib.import_module('os')",
    "import-multiprocessing": "import multiprocessing\nmultiprocessing.Process().start()",
    "import-pathlib": "import pathlib\npathlib.Path('/etc/shadow').read_text()",
    "import-builtins": "import builtins\nbuiltins.open('/etc/passwd')",
    "import-pickle": "import pickle\npickle.loads(b'cos\\nsystem\\n.')",
    "import-marshal": "import marshal",
    "import-inspect": "import inspect\ninspect.currentframe().f_back",
    "import-gc": "import gc\ngc.get_objects()",
    "import-code": "import code\ncode.interact()",
    "import-runpy": "import runpy\nrunpy.run_module('os')",
    "import-asyncio": "import asyncio\nasyncio.create_subprocess_shell('id')",
    "import-threading": "import threading",
    "import-signal": "import signal\nsignal.alarm(1)",
    "import-pty": "import pty\npty.spawn('/bin/sh')",
    "import-urllib": "import urllib.request\nurllib.request.urlopen('http://example.com')",
    "import-http": "import http.client",
    "import-requests": "import requests",
    "import-f2py": "import numpy.f2py",
    "relative-import": "from . import secrets",
    "star-import": "from math import *",
    # builtins
    "dunder-import": "__import__('os').system('id')",
    "eval": "eval('1+1')",
    "exec": "exec('import os')",
    "compile": "compile('1', 'f', 'eval')",
    "open": "open('/etc/passwd').read()",
    "globals": "globals()['__builtins__']",
    "locals": "locals()",
    "vars": "vars()",
    "breakpoint": "breakpoint()",
    "input": "input()",
    "exit": "exit()",
    "builtins-name": "__builtins__['open']('/etc/passwd')",
    "getattr-dunder": "getattr((), '__class__')",
    "getattr-computed": "name = '__cla' + 'ss__'\ngetattr((), name)",
    "getattr-as-value": "g = getattr\ng((), 'x')",
    "setattr-code": "def f(): pass\nsetattr(f, '__code__', None)",
    # dunder walks
    "subclasses-walk": "().__class__.__mro__[-1].__subclasses__()",
    "base-walk": "''.__class__.__base__.__subclasses__()",
    "func-globals": "(lambda: 0).__globals__['__builtins__']",
    "dict-access": "import pandas as pd\npd.__dict__",
    "type-mro": "type(1).mro()",
    "code-object": "def f(): pass\nf.__code__.co_code",
    "private-attr": "import pandas as pd\npd.io.common._expand_user('~')",
    # frames and generators
    "gen-frame": "def g():\n    yield 1\ng().gi_frame.f_globals",
    "coroutine-frame": "async def c(): pass\nc().cr_frame.f_back",
    "traceback-frame": "try:\n    1/0\nexcept Exception as e:\n    e.__traceback__.tb_frame",
    "traceback-tb-next": "try:\n    1/0\nexcept Exception as e:\n    t = e.args\n    t.tb_next",
    # format strings
    "format-dunder": "'{0.__class__}'.format(1)",
    "format-attr-walk": "'{0.real.imag}'.format(1)",
    "format-map": "'{x}'.format_map({'x': 1})",
    "format-computed": "t = '{0.re' + 'al}'\nt.format(1)",
    "str-format-unbound": "str.format('{0}', 1)",
    "dunder-in-string": "import operator\noperator.attrgetter('__class__')(1)",
    "nested-format-spec": "'{0:{1.imag}}'.format(1, 2)",
    # file readers on arbitrary paths
    "read-csv-passwd": "import pandas as pd\npd.read_csv('/etc/passwd')",
    "read-csv-parent": "import pandas as pd\npd.read_csv('../../shokunin.db')",
    "read-csv-url": "import pandas as pd\npd.read_csv('file:///etc/passwd')",
    "read-csv-home": "import pandas as pd\npd.read_csv('~/.ssh/id_rsa')",
    "to-csv-absolute": "import pandas as pd\npd.DataFrame().to_csv(path_or_buf='/tmp/x.csv')",
    "numpy-load-absolute": "import numpy as np\nnp.loadtxt('/etc/hostname')",
    "read-pickle": "import pandas as pd\npd.read_pickle('x.pkl')",
    "io-open": "import io\nio.open('x')",
    "savefig-absolute": "import matplotlib.pyplot as plt\nplt.savefig('/tmp/x.png')",
    # modules reached through allowed ones
    "matplotlib-os": "import matplotlib\nmatplotlib.os.system('id')",
    "pandas-sys": "import pandas as pd\npd.io.common.sys.modules",
    "df-eval": "import pandas as pd\npd.eval('1+1')",
    "environ": "import pandas as pd\npd.io.common.os.environ",
    # the kernel itself
    "get-ipython": "get_ipython().system('id')",
    "shell-escape": "!cat /etc/passwd",
    "line-magic": "%env",
    "cell-magic": "%%bash\nid",
    "sandbox-helper": "_shokunin_enter('/')",
    "ipython-history": "Out[1]",
    # entry points of allowed packages that escape (tests/sandbox/escape_survey.py):
    # processes
    "mpl-testing-subprocess": "from matplotlib.testing import subprocess_run_for_testing as r\n"
                              "r(['sh', '-c', 'id'])",
    "mpl-testing-attribute": "import matplotlib.testing\n"
                             "matplotlib.testing.subprocess_run_for_testing(['id'])",
    "mpl-testing-helper": "import matplotlib.testing as t\nt.subprocess_run_helper(print, 'x')",
    "mpl-testing-ipython": "from matplotlib import testing\ntesting.ipython_in_subprocess('x', {})",
    "scipy-conftest": "import scipy.conftest\nscipy.conftest.pytest_configure(None)",
    "scipy-conftest-from": "from scipy import conftest\nconftest.pytest_configure(None)",
    "mpl-private-module": "import matplotlib._internal_utils as u\n"
                          "u.graphviz_dump_transform(None, 'x.png')",
    "mpl-cbook-subprocess": "import matplotlib.cbook as c\n"
                            "c._check_and_log_subprocess(['id'], None)",
    "mpl-executable-info": "import matplotlib\nmatplotlib._get_executable_info('gs')",
    "mpl-fc-list": "import matplotlib.font_manager as fm\nfm.findSystemFonts()",
    "mpl-fc-list-rebuild": "from matplotlib.font_manager import FontManager\nFontManager()",
    "mpl-animation-ffmpeg": "import matplotlib.animation as a\na.FFMpegWriter()",
    "mpl-animation-writers": "from matplotlib import animation\nanimation.writers['ffmpeg']",
    "mpl-usetex-rc": "import matplotlib\nmatplotlib.rcParams['text.usetex'] = True",
    "mpl-usetex-keyword": "import matplotlib.pyplot as plt\nplt.text(0, 0, 'x', usetex=True)",
    "mpl-texmanager": "from matplotlib.texmanager import TexManager\n"
                      "TexManager().make_dvi('x', 10)",
    "mpl-pgf-backend": "import matplotlib.pyplot as plt\nplt.savefig('x.pdf', backend='pgf')",
    "mpl-switch-backend": "import matplotlib.pyplot as plt\nplt.switch_backend('webagg')",
    "mpl-module-backend": "import matplotlib\nmatplotlib.use('module://antigravity')",
    "mpl-webagg": "import matplotlib.backends.backend_webagg as w",
    "pandas-clipboard-module": "import pandas.io.clipboard as c\nc.init_xclip_clipboard()",
    "pandas-clipboard-attr": "import pandas as pd\npd.io.clipboards.read_clipboard()",
    "pandas-locales": "import pandas._config.localization as l\nl.get_locales()",
    "pandas-show-versions": "import pandas as pd\npd.show_versions()",
    "pandas-plot-backend": "import pandas as pd\npd.set_option('plotting.backend', 'pty')",
    "pandas-plot-backend-kw": "import pandas as pd\npd.DataFrame().plot(backend='pty')",
    "numpy-check-sve": "import numpy as np\nnp.testing.check_support_sve()",
    "numpy-distutils": "import numpy.distutils.exec_command as e",
    "numpy-private-module": "import numpy.testing._private.utils as u",
    # native code
    "numpy-extbuild": "from numpy.testing import extbuild\n"
                      "extbuild.build_and_import_extension('m', [])",
    "numpy-ctypeslib": "import numpy as np\nnp.ctypeslib.load_library('libc', '/lib')",
    "numpy-array-ctypes": "import numpy as np\nnp.zeros(1).ctypes.data_as(None)",
    "numpy-as-strided": "import numpy as np\n"
                        "np.lib.stride_tricks.as_strided(np.zeros(1), shape=(2**40,))",
    "array-interface": "import numpy as np\nclass A:\n    @property\n"
                       "    def __array_interface__(self):\n"
                       "        return {'data': (0, False), 'shape': (8,), 'typestr': 'u1'}\n"
                       "np.asarray(A())",
    "array-interface-attr": "class A:\n    __array_interface__ = {}",
    "dataframe-interchange": "import pandas as pd\nclass D:\n"
                             "    def __dataframe__(self, nan_as_null=False, allow_copy=True):\n"
                             "        return self\npd.api.interchange.from_dataframe(D())",
    # strings run as code
    "numpy-runstring": "import numpy as np\nnp.testing.runstring('print(1)', {})",
    "numpy-measure": "import numpy as np\nnp.testing.measure('print(1)', 1)",
    "numpy-rundocs": "from numpy.testing import rundocs\nrundocs('x.py')",
    "mpl-plot-directive": "from matplotlib.sphinxext.plot_directive import render_figures",
    "query-reference-walk": "import pandas as pd\n"
                            "pd.DataFrame({'a': [1]}).query(\"@pd.io.common.os.getcwd() == 'x'\")",
    "query-computed": "import pandas as pd\nq = '@pd.io' + '.common'\npd.DataFrame().query(q)",
    "df-eval-reference": "import pandas as pd\npd.DataFrame().eval('@pd.io')",
    # names the expression reads that the policy never sees (issue 34: sys.modules)
    "query-resolvers": "import pandas as pd\npd.DataFrame({'a': [1]}).query("
                       "'out.append(m.compat)', resolvers=[{'m': pd, 'out': []}])",
    "query-local-dict": "import pandas as pd\nq = pd.DataFrame().query\n"
                        "q('m.compat', local_dict={'m': pd})",
    "query-global-dict": "import pandas as pd\npd.DataFrame().query('m', global_dict={})",
    "query-splat-resolvers": "import pandas as pd\nq = pd.DataFrame().query\n"
                             "q('m.compat', **{'resolvers': [{'m': pd}]})",
    "query-level": "import pandas as pd\npd.DataFrame().query('a > @b', level=3)",
    # unpickling
    "numpy-load-pickle": "import numpy as np\nnp.load('x.npy', allow_pickle=True)",
    "numpy-read-array": "import io\nimport numpy as np\n"
                        "np.lib.format.read_array(io.BytesIO(b''), allow_pickle=True)",
    "pandas-pickle-compat": "from pandas.compat import pickle_compat\n"
                            "pickle_compat.Unpickler(None).load()",
    # files behind names the path check does not know
    "path-absolute": "import pandas as pd\npd.io.common.Path('/etc/passwd').read_text()",
    "mpl-sample-data": "import matplotlib.cbook as c\nc.get_sample_data('/etc/passwd')",
    "pandas-get-handle": "import pandas as pd\npd.io.common.get_handle('/etc/passwd', 'r')",
    "read-sql-server-db": "import pandas as pd\n"
                          "pd.read_sql_query('select 1', con='sqlite:////data/shokunin.db')",
}

SECRET_MARK = "s3cr3t-value"


def _error(kind: str) -> Callable[[ExecResult], bool]:
    return lambda r: r.error_type == kind


def _prints(text: str) -> Callable[[ExecResult], bool]:
    return lambda r: r.ok and text in r.stdout


def hook_refused(r: ExecResult) -> bool:
    """The audit hook's refusal: a PermissionError that says what and why."""
    return r.error_type == "PermissionError" and "not allowed in the sandbox" in (
        r.error_message or "")


def _or_hook(check: Callable[[ExecResult], bool]) -> Callable[[ExecResult], bool]:
    """The OS wall's answer, or the audit hook's refusal when the hook is on."""
    return lambda r: check(r) or hook_refused(r)


# CONTAINED snippets the audit hook stops before the OS wall is reached: tested again
# with the hook off (tests/sandbox/test_audit_wall.py), so that the OS wall is tested alone.
HOOK_INTERCEPTS = ("socket-internet", "socket-loopback", "not-root", "fork-bomb",
                   "unshare-again")


# Each runs with the policy bypassed, as if an escape existed; {data_dir} and {server_pid}
# are filled in by the test. Only the cases in STOPPED_BY_TIMEOUT may end on their deadline;
# every other one must be stopped by a wall (memory, processes, file size, permissions),
# so it gets a deadline long enough for a loaded machine and a Timeout fails it.
CONTAINED: dict[str, tuple[str, Callable[[ExecResult], bool]]] = {
    # not in the kernel's view at all (a normal user's server without one: unreadable)
    "read-shadow": ("open('/etc/shadow').read()",
                    lambda r: r.error_type in ("FileNotFoundError", "PermissionError")),
    "env-has-no-secret": (
        "import os\nprint(sorted(os.environ), any('s3cr3t' in v for v in os.environ.values()))",
        lambda r: r.ok and "SHOKUNIN_TEST_SECRET" not in r.stdout and "False" in r.stdout),
    "server-environ": ("open('/proc/{server_pid}/environ').read()",
                       _error("PermissionError")),
    "server-cmdline-env": ("import os\nprint(os.environ.get('SHOKUNIN_TEST_SECRET'))",
                           _prints("None")),
    "read-server-db": ("import pandas as pd\npd.read_csv('{data_dir}/shokunin.db')",
                       _error("FileNotFoundError")),
    "list-data-dir": ("import os\nprint(os.listdir('{data_dir}'))",  # hidden, or in /tmp
                      lambda r: _prints("[]")(r) or r.error_type == "FileNotFoundError"),
    "other-workspace": ("import os\nprint(os.path.exists('{data_dir}/workspaces/victim'))",
                        _prints("False")),
    "server-home": ("import os\nprint([n for n in os.listdir(os.path.expanduser('~root'))"
                    " if n != '.pyenv'])",  # hidden, or out of Landlock's reach
                    lambda r: _prints("[]")(r) or r.error_type == "PermissionError"),
    "socket-internet": ("import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
                        _or_hook(_error("OSError"))),
    "socket-loopback": ("import socket\nsocket.create_connection(('127.0.0.1', 8000), "
                        "timeout=1)", _or_hook(_error("OSError"))),
    "urlopen": ("import urllib.request\nurllib.request.urlopen('http://example.com', "
                "timeout=1)", _error("URLError")),
    "dns": ("import socket\nsocket.getaddrinfo('pypi.org', 443)", _error("gaierror")),
    "not-root": ("import subprocess\nprint(subprocess.run(['id', '-u'], capture_output=True,"
                 " text=True).stdout.strip() != '0')",
                 _or_hook(_prints("True"))),
    "setuid-root": ("import os\nos.setuid(0)", _error("PermissionError")),
    "kill-init": ("import os\nos.kill(1, 9)", _error("PermissionError")),
    "kill-server": ("import os\nos.kill({server_pid}, 9)", _error("PermissionError")),
    "write-outside": ("open('/work/evil.txt', 'w')",
                      lambda r: r.error_type in ("PermissionError", "FileNotFoundError",
                                                 "OSError")),
    "fork-bomb": (
        "import os, time\npids = []\ntry:\n    for _ in range(10000):\n"
        "        pid = os.fork()\n        if pid == 0:\n            time.sleep(3)\n"
        "            os._exit(0)\n        pids.append(pid)\nexcept OSError as e:\n"
        "    print('limited', len(pids) < 64, type(e).__name__)\n"
        "for p in pids:\n    os.kill(p, 9)\n    os.waitpid(p, 0)",
        # the snippet catches the error itself: the hook's shows as PermissionError
        lambda r: _prints("limited True BlockingIOError")(r)
        or _prints("limited True PermissionError")(r)),
    "memory-bomb-bytes": ("x = bytearray(4 * 2**30)", _error("MemoryError")),
    "memory-bomb-list": (
        "def bomb():\n    x = []\n    while True:\n        x.append(' ' * 2**24)\n"
        "try:\n    bomb()\nexcept MemoryError:\n    print('contained')",
        lambda r: "contained" in r.stdout or r.error_type == "KernelDied"),
    "infinite-loop": ("while True:\n    pass", _error("Timeout")),
    "sleep-forever": ("import time\ntime.sleep(10**6)", _error("Timeout")),
    "huge-output": ("print('x' * 100_000_000)",
                    lambda r: r.ok and len(r.stdout) < 2_000 + 200 and "truncated" in r.stdout),
    "many-lines": ("for i in range(10**5):\n    print(i)",
                   lambda r: len(r.stdout) < 2_200 and "truncated" in r.stdout),
    "huge-file": ("with open('big.bin', 'wb') as f:\n    f.write(b'0' * (1 << 30))",
                  lambda r: r.error_type in ("OSError", "MemoryError")),
    "huge-file-chunks": (
        "with open('big.bin', 'wb') as f:\n    for _ in range(1024):\n"
        "        f.write(b'0' * (1 << 20))", _error("OSError")),
    # a host service's unix socket: unix sockets ignore network namespaces
    "postgres-unix-socket": (
        "import socket\ns = socket.socket(socket.AF_UNIX)\n"
        "s.connect('/var/run/postgresql/.s.PGSQL.5432')",
        _or_hook(lambda r: r.error_type in ("FileNotFoundError", "PermissionError"))),
    "unshare-again": ("import ctypes\nprint(ctypes.CDLL(None).unshare(0x40000000))",
                      _or_hook(_prints("-1"))),
}


def _spawn(body: str) -> str:
    """Try ``body`` (which would create ./spawned), then say whether anything ran."""
    return ("import os\ntry:\n" + "".join(f"    {line}\n" for line in body.splitlines())
            + "finally:\n    print('spawned' if os.path.exists('spawned') else 'nothing ran')")


_TOUCH = "['sh', '-c', 'touch spawned']"
_BZ2 = ("import glob, importlib.util, os, sys\n"
        "[so] = glob.glob(os.path.join(sys.base_prefix, 'lib', 'python3*', 'lib-dynload',"
        " '_bz2.*.so'))\n")

# Sent past the policy: the audit hook must refuse each with a readable PermissionError,
# before any process starts or any native code loads.
HOOKED: dict[str, str] = {
    "subprocess-run": _spawn(f"import subprocess\nsubprocess.run({_TOUCH})"),
    "os-system": _spawn("os.system('touch spawned')"),
    "os-popen": _spawn("os.popen('touch spawned').read()"),
    "os-posix-spawn": _spawn(f"os.posix_spawn('/bin/sh', {_TOUCH}, dict(os.environ))"),
    "os-exec": _spawn(f"os.execv('/bin/sh', {_TOUCH})"),
    "os-fork": _spawn("if os.fork() == 0:\n    open('spawned', 'w')\n    os._exit(0)"),
    "pty-spawn": _spawn("import pty\npty.spawn(['touch', 'spawned'])"),
    "matplotlib-testing": _spawn("from matplotlib.testing import subprocess_run_for_testing "
                                 f"as r\nr({_TOUCH})"),
    "fork-exec-direct": _spawn("import multiprocessing.util as u\n"
                               f"u.spawnv_passfds('/bin/sh', {_TOUCH}, [])"),
    "fork-exec-reimport": _spawn("import sys\ndel sys.modules['_posixsubprocess']\n"
                                 "import _posixsubprocess"),
    "multiprocessing": _spawn("import multiprocessing as mp\n"
                              "p = mp.get_context('fork').Process(target=print)\np.start()"),
    "process-pool": _spawn("from concurrent.futures import ProcessPoolExecutor\n"
                           "ProcessPoolExecutor(1).submit(print, 1).result()"),
    "ctypes-dlopen": _spawn("import ctypes\nctypes.CDLL('libc.so.6').system(b'touch spawned')"),
    "ctypes-pythonapi": "import ctypes\nctypes.pythonapi.Py_GetVersion()",
    "ctypes-string-at": "import ctypes\nctypes.string_at(id(1), 8)",
    "ctypes-from-address": "import ctypes\nctypes.c_char.from_address(id(1))",
    "extension-from-workspace": (
        _BZ2 + "import shutil\nshutil.copy(so, os.path.basename(so))\n"
        "spec = importlib.util.spec_from_file_location('_bz2', os.path.basename(so))\n"
        "importlib.util.module_from_spec(spec)"),
    "extension-from-memfd": (
        _BZ2 + "fd = os.memfd_create('x')\nos.write(fd, open(so, 'rb').read())\n"
        "path = f'/proc/self/fd/{fd}'\n"
        "loader = importlib.machinery.ExtensionFileLoader('_bz2', path)\n"
        "spec = importlib.util.spec_from_file_location('_bz2', path, loader=loader)\n"
        "importlib.util.module_from_spec(spec)"),
    "uvloop-spawn": "import uvloop",
    "cffi-dlopen": _spawn("import cffi\nffi = cffi.FFI()\nffi.cdef('int system(const char *);')\n"
                          "ffi.dlopen(None).system(b'touch spawned')"),
    "cryptography-native": "import cryptography.hazmat.bindings._rust",
    "libpq-connect": "import psycopg_binary",
    "duckdb-extension": "import duckdb\nduckdb.connect(config={'allow_unsigned_extensions': True})",
    "sub-interpreter": "import _xxsubinterpreters as s\ns.run_string(s.create(), 'print(1)')",
    "own-memory": "open('/proc/self/mem', 'r+b')",
    "own-memory-path": "import pandas as pd\nopen(pd.io.common.Path('/proc/self/mem'), 'rb')",
    "own-memory-os-open": "import os\nos.open('/proc/thread-self/mem', os.O_RDWR)",
    "own-memory-relative": "import os\nos.chdir('/proc/self')\nopen('mem', 'rb')",
    "socket-connect-unix": "import socket\ns = socket.socket(socket.AF_UNIX)\n"
                           "s.connect('/run/anything.sock')",
}

STOPPED_BY_TIMEOUT = {"infinite-loop", "sleep-forever"}


# "Arbitrary code": the policy and the audit hook are a courtesy, not a wall (issue 34: a
# policy-clean cell reached sys.modules through DataFrame.query's resolvers, emptied the
# hook's rules through gc and started /bin/sh). These start from there, a shell or native
# code as the kernel's uid, and only the OS walls may stop them. Run in kernels without the
# hook; {data_dir}, {workdir} (the server's working folder, holding server.log),
# {server_pid}, {marker} (a name unique to the run) and {sockets} (the paths of listeners
# planted where host services keep theirs) are filled in by the test.
SERVER_LOG = "token=admin-token-in-the-server-log"
DATABASE = "server secrets"


def _sh(command: str) -> str:
    """Run ``command`` with /bin/sh; print its exit status and what it printed."""
    return ("import subprocess\n"
            f"p = subprocess.run(['/bin/sh', '-c', {command!r}], capture_output=True, "
            "text=True)\nprint(f'rc={p.returncode}', p.stdout, p.stderr)")


def _native(body: str) -> str:
    """``body`` with libc at hand (``libc``, ``errno()``), as native code would call it."""
    return ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "libc.syscall.restype = ctypes.c_long\nerrno = ctypes.get_errno\n" + body)


def _failed(r: ExecResult) -> bool:
    """The shell ran and its command failed."""
    return r.ok and "rc=" in r.stdout and "rc=0 " not in r.stdout


def _denied(*errors: str) -> Callable[[ExecResult], bool]:
    return lambda r: r.error_type in errors


def _secret_not_shown(r: ExecResult) -> bool:
    return SERVER_LOG not in r.stdout + r.stderr and DATABASE not in r.stdout + r.stderr


_PTRACE_ATTACH = "print('ptrace', libc.ptrace(16, {pid}, 0, 0), errno())"
# Another kernel with the same parent (the template, or the server for cold kernels).
_SIBLING = ("def _parent(pid):\n    try:\n"
            "        return int(open(f'/proc/{pid}/stat').read().rpartition(')')[2].split()[1])\n"
            "    except (OSError, ValueError):\n        return None\n"
            "siblings = [int(p) for p in os.listdir('/proc') if p.isdigit()\n"
            "            and int(p) != os.getpid() and _parent(p) == os.getppid()]\n"
            "sibling = max(siblings)\nprint('sibling', sibling)\n")
# The template's control socket is a SOCK_SEQPACKET one: none may be open in a kernel.
_INHERITED = """import os, socket
for fd in sorted(int(n) for n in os.listdir('/proc/self/fd')):
    try:
        s = socket.socket(fileno=os.dup(fd))
    except OSError:
        continue
    if s.type == socket.SOCK_SEQPACKET:
        print('control socket', fd)
    s.detach()
print('checked')
"""
# Each socket named in {sockets}: a connect, native, as a client library would make it.
_HOST_SOCKETS = """import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
for path in '{sockets}'.split():
    print('tried', path)
    address = socket.AF_UNIX.to_bytes(2, 'little') + path.encode() + bytes(108 - len(path))
    fd = socket.socket(socket.AF_UNIX).detach()
    if libc.connect(fd, address, len(address)) == 0:
        print('connected', path)
    else:
        print('refused', path, os.strerror(ctypes.get_errno()))
"""
ARBITRARY: dict[str, tuple[str, Callable[[ExecResult], bool]]] = {
    # new namespaces: uid 0 of a user namespace of its own, free to mount
    "unshare-user": (_sh("unshare -Ur id -u"), _failed),
    "unshare-mount-tmpfs": (_sh("unshare -Urm sh -c 'mount -t tmpfs none /mnt && echo mounted'"),
                            lambda r: _failed(r) and "mounted" not in r.stdout),
    "unshare-native": (_native(  # in a fork: a process with threads may not unshare a user ns
        "pid = os.fork()\nif pid == 0:\n    os._exit(libc.unshare(0x10000000 | 0x00020000) + 7)\n"
        "print('unshare', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) - 7)"),
        _prints("unshare -1")),
    # other processes: tracing its own fork, the server, its memory, its environment
    "ptrace-own-fork": (_native(
        "import time\npid = os.fork()\nif pid == 0:\n    time.sleep(5)\n    os._exit(0)\n"
        + _PTRACE_ATTACH.format(pid="pid") + "\nos.kill(pid, 9)\nos.waitpid(pid, 0)"),
        _prints("ptrace -1")),
    "ptrace-server": (_native(_PTRACE_ATTACH.format(pid="{server_pid}")), _prints("ptrace -1")),
    "server-memory": ("open('/proc/{server_pid}/mem', 'rb').read(1)",
                      _denied("PermissionError")),
    "server-environ": ("print(open('/proc/{server_pid}/environ', 'rb').read()[:40])",
                       _denied("PermissionError")),
    "signal-server": ("import os\nos.kill({server_pid}, 0)", _denied("PermissionError")),
    # code and data in the host kernel
    "bpf": (_native("attr = ctypes.create_string_buffer(128)\n"
                    "attr[0:16] = bytes([2, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0])\n"
                    "print('bpf', libc.syscall(321, 0, attr, 128))"), _prints("bpf -1")),
    "keyctl-add-key": (_native("print('add_key', libc.syscall(248, b'user', b'shokunin', b'x',"
                               " 1, -2))"), _prints("add_key -1")),
    "io-uring": (_native("params = ctypes.create_string_buffer(120)\n"
                         "print('io_uring', libc.syscall(425, 8, params))"),
                 _prints("io_uring -1")),
    "personality": (_native("print('personality', libc.personality(0x0400000))"),
                    _prints("personality -1")),
    # the network, even where a namespace could not be made
    "udp-socket": ("import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
                   _denied("OSError")),
    "tcp6-socket": ("import socket\nsocket.socket(socket.AF_INET6, socket.SOCK_STREAM)",
                    _denied("OSError")),
    "raw-packet-socket": ("import socket\nsocket.socket(socket.AF_PACKET, socket.SOCK_RAW)",
                          _denied("OSError", "PermissionError")),
    # the server's files
    "read-database": ("print(open('{data_dir}/shokunin.db').read())",
                      _denied("PermissionError", "FileNotFoundError")),
    "read-server-log": ("print(open('{workdir}/server.log').read())",
                        _denied("PermissionError", "FileNotFoundError")),
    "shell-reads-server-files": (_sh("cat {workdir}/server.log {data_dir}/shokunin.db; "
                                     "cat /tmp/shokunin-sandbox-*/k*.view{data_dir}/shokunin.db"
                                     " /tmp/shokunin-sandbox-*/k*.view{workdir}/server.log"),
                                 lambda r: _failed(r) and _secret_not_shown(r)),
    # the template kernels are forked from (their parent) and a kernel forked beside this
    # one (the harness starts one first): its memory, its signals, its descriptors
    "signal-template": ("import os\nos.kill(os.getppid(), 0)", _denied("PermissionError")),
    "template-memory": ("import os\nopen(f'/proc/{os.getppid()}/mem', 'rb').read(1)",
                        _denied("PermissionError")),
    "template-environ": ("import os\nprint(open(f'/proc/{os.getppid()}/environ', 'rb').read())",
                         _denied("PermissionError")),
    "ptrace-template": (_native(_PTRACE_ATTACH.format(pid="os.getppid()")),
                        _prints("ptrace -1")),
    "sibling-kernel": (_native(_SIBLING + _PTRACE_ATTACH.format(pid="sibling") + "\n"
                               "for what in ('mem', 'environ'):\n    try:\n"
                               "        open(f'/proc/{sibling}/{what}', 'rb').read(1)\n"
                               "        print('read', what)\n    except OSError as exc:\n"
                               "        print('refused', what, type(exc).__name__)\n"
                               "try:\n    os.kill(sibling, 0)\n    print('signalled')\n"
                               "except OSError as exc:\n    print('refused signal', exc.errno)"),
                       lambda r: r.ok and "ptrace -1" in r.stdout and "read " not in r.stdout
                       and "signalled" not in r.stdout and "refused signal" in r.stdout),
    "inherited-descriptors": (_INHERITED, lambda r: r.ok and "checked" in r.stdout
                              and "control socket" not in r.stdout),
    # writing outside the kernel's own folders
    "write-var-tmp": (_sh("echo x > /var/tmp/{marker}"), _failed),
    "write-server-workdir": ("open('{workdir}/{marker}', 'w').write('x')",
                             _denied("PermissionError", "FileNotFoundError")),
    # host services' unix sockets (PostgreSQL's with trust auth, MariaDB's, a Redis under
    # /var/lib): listeners the harness planted, with every user allowed to connect
    "host-sockets": (_HOST_SOCKETS, lambda r: r.ok and "connected" not in r.stdout
                     and r.stdout.count("refused") == r.stdout.count("tried") > 0),
    "host-sockets-shell": (_sh("for s in {sockets}; do python3 -c \"import socket,sys; "
                               "socket.socket(socket.AF_UNIX).connect(sys.argv[1]); "
                               "print('connected', sys.argv[1])\" $s; done; true"),
                           lambda r: r.ok and "rc=0" in r.stdout and "connected" not in r.stdout),
}
