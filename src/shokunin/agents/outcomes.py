"""What a failed step says to a person, for every agent's final words.

A reply is written from the recorded result of each step, never from what the step was
asked to do: a Python cell that did not run to its end (the sandbox's ``ExecResult`` with
``ok`` false) becomes one sentence, in the person's language, saying what happened and what
they can do about it. The sandbox's own kinds of failure (a kernel that died, a deadline,
a refusal) are named in words, not by their class names; a Python error of the code itself
keeps its type and message in brackets, which is what a person fixing code reads.
"""

from __future__ import annotations

MEMORY_ERRORS = ("MemoryError", "ArrowMemoryError")

# error_type -> (English, Japanese); {message} is the sandbox's own detail
_WORDS: dict[str, tuple[str, str]] = {
    "KernelDied": (
        "The Python process stopped while running it (most likely out of memory, or "
        "killed). A fresh one has taken its place: send the request again (variables and "
        "data loaded before are gone).",
        "Python の実行環境が途中で止まりました（メモリ不足などで強制終了されたとみられます）。"
        "新しい実行環境に替わったので、もう一度送ってください（それまでの変数や読み込んだ"
        "データは消えています）。"),
    "Timeout": (
        "It did not finish within the time limit and was stopped: ask for less data, or "
        "in smaller steps.",
        "制限時間内に終わらなかったため止めました。データを絞るか、処理を分けて依頼して"
        "ください。"),
    "Interrupted": ("It was stopped before it finished.", "終わる前に中断されました。"),
    "SandboxBusy": (
        "Every Python process of this server is busy: try again in a moment.",
        "このサーバーの Python の実行環境がすべて使用中です。少し待ってからもう一度送って"
        "ください。"),
    "SandboxUnavailable": (
        "This server cannot run Python: it cannot build the sandbox's walls. Ask its "
        "operator (the server's /health says why).",
        "このサーバーでは Python を実行できません（安全のための隔離を用意できません）。"
        "管理者に連絡してください（理由はサーバーの /health にあります）。"),
    "PolicyViolation": (
        "The sandbox's rules refused the code ({message}): ask for it without that.",
        "安全のための規則でコードを実行しませんでした（{message}）。その処理を使わない形で"
        "依頼してください。"),
    "SyntaxError": ("The code has a syntax error ({message}).",
                    "コードに文法の誤りがあります（{message}）。"),
}
_NO_FRESH_KERNEL = (
    "The Python process stopped while running it, and no fresh one could start: wait a "
    "little and send the request again, or ask the server's operator (its log says why).",
    "Python の実行環境が途中で止まり、新しい実行環境も起動できませんでした。少し待って"
    "から送り直すか、管理者に連絡してください（理由はサーバーのログにあります）。")
_MEMORY = (
    "It ran out of memory ({detail}): ask about fewer rows or columns (the sandbox's limit "
    "is SHOKUNIN_SANDBOX_MEMORY_MB).",
    "メモリが足りず止まりました（{detail}）。行や列を絞って依頼してください（上限は "
    "SHOKUNIN_SANDBOX_MEMORY_MB）。")
_CODE_ERROR = ("The code stopped with an error ({detail}).",
               "コードの実行中にエラーが起きました（{detail}）。")


def cell_failure(error_type: str | None, error_message: str | None, ja: bool) -> str:
    """One or two sentences for a cell that did not run to its end: what happened, and what
    the person can do."""
    message = (error_message or "").strip()
    detail = f"{error_type}: {message}" if error_type and message else (
        error_type or message or ("unknown error" if not ja else "詳細不明"))
    if error_type == "KernelDied" and "no fresh kernel could start" in message:
        return _NO_FRESH_KERNEL[ja]
    if error_type in MEMORY_ERRORS:
        return _MEMORY[ja].format(detail=detail)
    if error_type == "CannotAnswer":  # the analysis's own refusal, already in words
        return message
    if error_type in _WORDS:
        return _WORDS[error_type][ja].format(message=message.rstrip("。.") or detail)
    return _CODE_ERROR[ja].format(detail=detail)
