"""The template kernel process: imports what every kernel imports, once, then forks a
kernel per request, so the libraries' pages are shared copy-on-write between kernels.

Run by path by the server (``template.py``): ``python zygote.py CONTROL_FD SERVER_PID
RUNTIME_ROOT``, with the environment every kernel starts with (built from nothing: the
template holds no secret, and a kernel gets a copy of all its memory). The runtime folder
on its command line is how a successor finds what a dead server left (``runtime.py``).

The template itself runs no user code. It talks to the server only over ``CONTROL_FD``, one
end of a socketpair (no name in the filesystem, so nothing else can reach it), one
datagram per message: a request is the launcher's own command line (``launcher.py CONFIG
-- python -m ipykernel_launcher ...``) with the kernel's environment, working folder and an
id; the answer carries the id back, with the kernel's pid and a pidfd of it
(``SCM_RIGHTS``), or an error. A release names a kernel the server is done with: only then
is it reaped once it exits, so its pid is not reused while the server may still use it.

The forked child, before it runs anything of its own: closes the control socket and every
other descriptor it did not open for itself, starts a session of its own, takes the
kernel's environment, applies every wall of the launcher (``launcher.wall``: namespaces,
mounts, its own uid, limits, Landlock, seccomp; it dies with the template, which dies
with the server), reseeds what a fork would share, and runs ipykernel in place of the
exec. Between forks the template holds no thread, no socket but the control one and no
ZMQ context, so the child starts from a process that is safe to fork.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import socket
import sys
import traceback

gc.disable()  # until the imports are frozen: a collection would dirty shared pages

import launcher  # noqa: E402  (the walls; found beside this file)

KERNEL = ["-m", "ipykernel_launcher"]
MAX_MESSAGE = 1 << 20


def warm() -> None:
    """Import what a kernel imports before its first cell (ipykernel and what it loads as
    it starts, kernel_startup.py's imports), so no kernel has to. Not matplotlib's inline
    backend: imported with no IPython shell yet, it would never hook into the kernel's."""
    import ipykernel.debugger  # noqa: F401
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import IPython.core.completerlib  # noqa: F401
    import IPython.core.debugger  # noqa: F401
    import IPython.core.pylabtools  # noqa: F401
    import IPython.extensions.storemagic  # noqa: F401
    import matplotlib.pyplot  # noqa: F401
    import pandas  # noqa: F401
    import tornado.gen  # noqa: F401
    import tornado.platform.asyncio  # noqa: F401
    import tornado.queues  # noqa: F401

    with contextlib.suppress(ImportError):
        import matplotlib_fontja  # noqa: F401
    with contextlib.suppress(ImportError, OSError):  # loaded by the walls' seccomp filter
        import pyseccomp  # noqa: F401


def rehearse() -> None:
    """Run a typical first cell once (read a CSV, group, draw a bar chart with a Japanese
    title to PNG), so that what pandas and matplotlib import or cache on first use is the
    template's, shared, rather than each kernel's. On a bare Figure: pyplot would pick its
    backend now, with no IPython shell to hook into. The fonts' open files are let go."""
    import io

    import matplotlib.font_manager
    import pandas as pd
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    frame = pd.read_csv(io.StringIO("地域,売上\n東,3\n西,1\n東,2\n"))
    totals = frame.groupby("地域")["売上"].sum()
    totals.to_string()
    figure = Figure()
    axes = figure.subplots()
    axes.bar(list(totals.index), list(totals.values))
    axes.set_title("地域別売上")
    FigureCanvasAgg(figure).print_png(io.BytesIO())
    matplotlib.font_manager._get_font.cache_clear()  # noqa: SLF001 - closes the font files


def find_fork_exec() -> None:
    """Record where the imported modules hold ``_posixsubprocess.fork_exec``, for the
    kernels' audit wall (kernel_startup.py), which swaps every such reference for a
    refusal: each kernel then reads only the modules it imports itself."""
    import _posixsubprocess

    fork_exec = _posixsubprocess.fork_exec
    holders = tuple((module_name, name) for module_name, module in list(sys.modules.items())
                    for name, value in list(getattr(module, "__dict__", {}).items())
                    if value is fork_exec)
    sys._shokunin_template = (frozenset(sys.modules), holders)  # type: ignore[attr-defined]


def fit_to_fork(control: socket.socket) -> str | None:
    """Why a fork now would not be clean (None: it would): a thread, or a descriptor
    beyond the standard three and the control socket, would be copied into the kernel."""
    threads = os.listdir("/proc/self/task")
    if len(threads) != 1:
        return f"the template runs {len(threads)} threads"
    extra = sorted(int(fd) for fd in os.listdir("/proc/self/fd")
                   if int(fd) > 2 and int(fd) != control.fileno())
    # listdir's own descriptor of /proc/self/fd is closed by now: anything left is held
    extra = [fd for fd in extra if _is_open(fd)]
    return f"the template holds descriptors {extra}" if extra else None


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


RELEASED: set[int] = set()  # kernels the server is done with: reaped once they exit


def reap(_signum: int = 0, _frame: object = None) -> None:
    """Collect the exited kernels the server released. Until then an exited kernel stays a
    zombie, so its pid (and process group) cannot be reused while the server may still
    signal or look up that number (as a cold kernel, the server's child, stays until
    jupyter_client collects it)."""
    for pid in list(RELEASED):
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                RELEASED.discard(pid)
        except ChildProcessError:
            RELEASED.discard(pid)


def serve(control: socket.socket, template_pid: int) -> None:
    """Answer each fork request (its ``id`` echoed, so the server can tell a late answer
    from the one it waits for) and take each release; until the server closes its end."""
    while True:
        try:
            message = control.recv(MAX_MESSAGE)
        except ConnectionResetError:
            return
        if not message:
            return  # the server closed its end
        request = json.loads(message)
        if "release" in request:
            RELEASED.add(int(request["release"]))
            reap()
            continue
        try:
            unfit = fit_to_fork(control)
            if unfit:
                raise RuntimeError(unfit)
            pid = os.fork()
            if pid == 0:
                become_kernel(control, request, template_pid)
            pidfd = os.pidfd_open(pid)  # the child is ours until released: no race
        except Exception as exc:  # noqa: BLE001 - the server gets the reason
            control.send(json.dumps({"id": request.get("id"),
                                     "error": f"{type(exc).__name__}: {exc}"}).encode())
            continue
        try:
            socket.send_fds(control, [json.dumps({"id": request.get("id"),
                                                  "pid": pid}).encode()], [pidfd])
        finally:
            os.close(pidfd)


def become_kernel(control: socket.socket, request: dict, template_pid: int) -> None:
    """In the forked child: wall it in, then run the kernel; never returns."""
    code = 1
    try:
        control.close()  # first: a kernel must never hold the way to the template
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the template's own handling
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setsid()  # its own process group: the server signals and kills it as one
        launcher.name_process(b"shokunin-kernel")  # in ps, apart from the template
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        argv = request["argv"]
        config = json.loads(argv[2])
        kernel_argv = argv[argv.index("--") + 1:]
        if kernel_argv[1:3] != KERNEL:
            raise ValueError(f"the template starts kernels only, not {kernel_argv[1:3]}")
        launcher.wall(config, template_pid)
        # The template was run by path, so its folder (shokunin's sandbox modules) heads
        # sys.path; a kernel started with -m has its working folder there instead.
        sys.path[0] = os.getcwd()
        gc.enable()
        reseed()
        # ipykernel watches its parent (jupyter_client names the server, whose child a cold
        # kernel is; the class read it from the template's environment): the template here
        args = [*kernel_argv[3:], f"--IPKernelApp.parent_handle={template_pid}"]
        sys.argv = [kernel_argv[0], *args]
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance(argv=args)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - said on stderr, as a failed exec would
        traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):  # nothing may keep the child from exiting
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def reseed() -> None:
    """A fork copies the template's random state: each kernel draws its own. (``random``
    reseeds itself after a fork; NumPy's global generator does not.)"""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


def main(argv: list[str]) -> None:
    control = socket.socket(fileno=int(argv[1]))
    launcher.die_with(int(argv[2]))
    os.setsid()  # out of the server's process group: its signals are not the template's
    warm()
    rehearse()
    find_fork_exec()
    # Every object so far, garbage too, out of the collector's reach: a kernel's collections
    # never write to them. No collection first: the holes it frees would take the kernels'
    # new objects and copy their pages (the gc module's own advice for fork without exec).
    gc.freeze()
    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    unfit = fit_to_fork(control)
    control.send(json.dumps({"ready": unfit is None, "error": unfit}).encode())
    serve(control, os.getpid())


if __name__ == "__main__":
    main(sys.argv)
