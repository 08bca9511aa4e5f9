"""Runner errors.

    RunError
    ├── RunNotFound       no such run
    ├── ThreadNotFound    no such thread, or one the caller may not see
    ├── UnknownAgent      no agent registered under that name
    ├── InvalidThreadId   a thread id that is not 1-128 safe characters
    ├── InvalidRunInput   an input or resume value that cannot be stored (a lone surrogate)
    ├── RunStateError     the run cannot do that now: ``not_waiting`` (resume a run that
    │                     waits for nobody), ``run_live`` (delete a thread with a live run)
    └── ThreadOfAnotherFace  the thread was made by another agent (face): a thread belongs
                          to the face that made it, so no other face's agent runs on it
"""

from shokunin.errors import ErrorCode, ShokuninError


class RunError(ShokuninError):
    status = 409
    code = ErrorCode.RUN_ERROR  # what an HTTP face answers with it (409)


class RunNotFound(RunError):
    status = 404
    code = ErrorCode.NOT_FOUND

    @property
    def message(self) -> str:
        return f"no run {str(self)!r}"  # raised with the run id


class UnknownAgent(RunError):
    pass


class RunStateError(RunError):
    pass


class InvalidThreadId(RunError):
    status = 400
    code = ErrorCode.BAD_THREAD_ID


class InvalidRunInput(RunError):
    status = 400
    code = ErrorCode.BAD_REQUEST


class ThreadNotFound(RunError):
    """No such thread, or one the caller may not see (answered alike: ids cannot be probed)."""

    status = 404
    code = ErrorCode.NOT_FOUND


class ThreadOfAnotherFace(RunError):
    code = ErrorCode.THREAD_OF_ANOTHER_FACE
