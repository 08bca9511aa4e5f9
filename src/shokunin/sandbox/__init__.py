"""Seed 004 exec_python: model-written Python in a walled Jupyter kernel per thread.

Two walls: an AST policy refuses what is visibly dangerous before anything runs
(``policy.py``); the kernel runs in its own network and mount namespaces, as its own
uid, under resource limits (``launcher.py``). See README "The Python sandbox" for the threat model.
"""

import lazy_loader

# Names are imported on first use: an upload's parse child unpickles its walls
# (``parser_walls``) without importing jupyter_client and the kernels' machinery.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "contracts": ["ExecPythonInput", "ExecPythonOutput", "ExecResult"],
    "kernel": ["KernelDied"],
    "policy": ["PolicyViolation", "check_policy"],
    "sandbox": ["Sandbox", "SandboxUnavailable"],
})
