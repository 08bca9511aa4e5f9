"""Seed 004 exec_python: model-written Python in a walled Jupyter kernel per thread.

Two walls: an AST policy refuses what is visibly dangerous before anything runs
(``policy.py``); the kernel runs in its own network and mount namespaces, as its own
uid, under resource limits (``launcher.py``). See README "The Python sandbox" for the threat model.
"""

from shokunin.sandbox.contracts import ExecPythonInput, ExecPythonOutput, ExecResult
from shokunin.sandbox.kernel import KernelDied
from shokunin.sandbox.policy import PolicyViolation, check_policy
from shokunin.sandbox.sandbox import Sandbox, SandboxUnavailable

__all__ = ["ExecPythonInput", "ExecPythonOutput", "ExecResult", "KernelDied", "PolicyViolation",
           "Sandbox", "SandboxUnavailable", "check_policy"]
