"""Runner errors.

    RunError
    ├── RunNotFound       no such run
    ├── UnknownAgent      no agent registered under that name
    ├── InvalidThreadId   a thread id that is not 1-128 safe characters
    ├── InvalidRunInput   an input or resume value that cannot be stored (a lone surrogate)
    └── RunStateError     the run cannot do that now (resume a finished run, ...)
"""


class RunError(Exception):
    pass


class RunNotFound(RunError):
    pass


class UnknownAgent(RunError):
    pass


class RunStateError(RunError):
    pass


class InvalidThreadId(RunError):
    pass


class InvalidRunInput(RunError):
    pass
