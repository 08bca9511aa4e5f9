"""Runner errors.

    RunError
    ├── RunNotFound       no such run
    ├── UnknownAgent      no agent registered under that name
    ├── InvalidThreadId   a thread id that is not 1-128 safe characters
    ├── InvalidRunInput   an input or resume value that cannot be stored (a lone surrogate)
    ├── RunStateError     the run cannot do that now (resume a finished run, ...)
    └── ThreadOfAnotherFace  the thread was made by another agent (face): a thread belongs
                          to the face that made it, so no other face's agent runs on it
"""


class RunError(Exception):
    code = "run_error"  # what an HTTP face answers with it (409)


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


class ThreadOfAnotherFace(RunError):
    code = "thread_belongs_to_other_face"
