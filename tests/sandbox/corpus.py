"""Hostile snippets. BLOCKED must never run; CONTAINED run past the policy (as if it had a
hole) and must still do no harm. Each CONTAINED check gets the ExecResult."""

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
}

SECRET_MARK = "s3cr3t-value"


def _error(kind: str) -> Callable[[ExecResult], bool]:
    return lambda r: r.error_type == kind


def _prints(text: str) -> Callable[[ExecResult], bool]:
    return lambda r: r.ok and text in r.stdout


# Each runs with the policy bypassed, as if an escape existed; {data_dir} and {server_pid}
# are filled in by the test. Only the cases in STOPPED_BY_TIMEOUT may end on their deadline;
# every other one must be stopped by a wall (memory, processes, file size, permissions),
# so it gets a deadline long enough for a loaded machine and a Timeout fails it.
CONTAINED: dict[str, tuple[str, Callable[[ExecResult], bool]]] = {
    "read-shadow": ("open('/etc/shadow').read()", _error("PermissionError")),
    "env-has-no-secret": (
        "import os\nprint(sorted(os.environ), any('s3cr3t' in v for v in os.environ.values()))",
        lambda r: r.ok and "SHOKUNIN_TEST_SECRET" not in r.stdout and "False" in r.stdout),
    "server-environ": ("open('/proc/{server_pid}/environ').read()",
                       _error("PermissionError")),
    "server-cmdline-env": ("import os\nprint(os.environ.get('SHOKUNIN_TEST_SECRET'))",
                           _prints("None")),
    "read-server-db": ("import pandas as pd\npd.read_csv('{data_dir}/shokunin.db')",
                       _error("FileNotFoundError")),
    "list-data-dir": ("import os\nprint(os.listdir('{data_dir}'))", _prints("[]")),
    "other-workspace": ("import os\nprint(os.path.exists('{data_dir}/workspaces/victim'))",
                        _prints("False")),
    "server-home": ("import os\nprint([n for n in os.listdir(os.path.expanduser('~root'))"
                    " if n != '.pyenv'])", _prints("[]")),
    "socket-internet": ("import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
                        _error("OSError")),
    "socket-loopback": ("import socket\nsocket.create_connection(('127.0.0.1', 8000), "
                        "timeout=1)", _error("OSError")),
    "urlopen": ("import urllib.request\nurllib.request.urlopen('http://example.com', "
                "timeout=1)", _error("URLError")),
    "dns": ("import socket\nsocket.getaddrinfo('pypi.org', 443)", _error("gaierror")),
    "not-root": ("import subprocess\nprint(subprocess.run(['id', '-u'], capture_output=True,"
                 " text=True).stdout.strip() != '0')", _prints("True")),
    "setuid-root": ("import os\nos.setuid(0)", _error("PermissionError")),
    "kill-init": ("import os\nos.kill(1, 9)", _error("PermissionError")),
    "kill-server": ("import os\nos.kill({server_pid}, 9)", _error("PermissionError")),
    "write-outside": ("open('/work/evil.txt', 'w')", _error("PermissionError")),
    "fork-bomb": (
        "import os, time\npids = []\ntry:\n    for _ in range(10000):\n"
        "        pid = os.fork()\n        if pid == 0:\n            time.sleep(3)\n"
        "            os._exit(0)\n        pids.append(pid)\nexcept OSError as e:\n"
        "    print('limited', len(pids) < 64, type(e).__name__)\n"
        "for p in pids:\n    os.kill(p, 9)\n    os.waitpid(p, 0)",
        _prints("limited True BlockingIOError")),
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
    "unshare-again": ("import ctypes\nprint(ctypes.CDLL(None).unshare(0x40000000))",
                      _prints("-1")),
}

STOPPED_BY_TIMEOUT = {"infinite-loop", "sleep-forever"}
