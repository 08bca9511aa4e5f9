"""What a user of the Advisor reads when it cannot answer: one sentence per problem, in the
playbook's language (Japanese by default), that says what happened and what to do, with no
API words. The wire keeps the machine ``code`` beside it; the developer's text (with the
error id an operator looks up) goes in ``detail``.
"""

from __future__ import annotations

from dataclasses import dataclass

from shokunin.errors import ErrorCode, ShokuninError


@dataclass(frozen=True)
class Problem:
    """A problem as the user reads it: ``ja`` and ``en`` sentences, and its wire ``code``
    when the error that caused it has none of its own."""

    code: str
    ja: str
    en: str

    def said(self, language: str) -> str:
        """The sentence in ``language`` (a playbook's: ``ja``, ``en``, ``ja-JP`` ...)."""
        return self.en if language.lower().startswith("en") else self.ja


NO_SESSION = Problem(
    ErrorCode.NOT_FOUND,
    "セッションが見つかりません。ページを再読み込みして新しい相談を始めてください。",
    "This conversation was not found. Reload the page to start a new one.")
BAD_SESSION = Problem(
    ErrorCode.BAD_THREAD_ID,
    "セッションの番号が正しくありません。ページを再読み込みして新しい相談を始めてください。",
    "This conversation's number is not valid. Reload the page to start a new one.")
NO_MESSAGE = Problem(
    ErrorCode.BAD_REQUEST,
    "メッセージが届きませんでした。ご質問を入力して、もう一度送信してください。",
    "No message arrived. Type your question and send it again.")
TOO_LONG = Problem(
    ErrorCode.BAD_REQUEST,
    "メッセージが長すぎます（{limit}文字まで）。短く分けて送信してください。",
    "The message is too long (at most {limit} characters). Send it in shorter parts.")
UNAVAILABLE = Problem(
    ErrorCode.ADVISOR_UNAVAILABLE,
    "相談窓口を開けませんでした（設定に問題があります）。管理者に連絡してください。",
    "The advisor could not start (a setting is wrong). Please contact the administrator.")
BUSY = Problem(
    ErrorCode.RUN_ERROR,
    "前のご質問への回答を作成中です。回答が終わってから、もう一度送信してください。",
    "The previous answer is still being written. Send again when it is done.")
FAILED = Problem(
    ErrorCode.RUN_FAILED,
    "回答の作成中に問題が起きました。しばらく待ってから、もう一度送信してください。",
    "Something went wrong while writing the answer. Wait a moment and send again.")
CANCELLED = Problem(
    ErrorCode.CANCELLED,
    "回答を中断しました。続けるには、もう一度送信してください。",
    "The answer was stopped. Send your question again to continue.")
INTERNAL = Problem(
    ErrorCode.INTERNAL,
    "問題が起きました。しばらく待ってから、もう一度お試しください。",
    "Something went wrong. Wait a moment and try again.")

_BY_CODE = {
    ErrorCode.NOT_FOUND: NO_SESSION,
    ErrorCode.THREAD_OF_ANOTHER_FACE: NO_SESSION,
    ErrorCode.BAD_THREAD_ID: BAD_SESSION,
    ErrorCode.BAD_REQUEST: NO_MESSAGE,
    ErrorCode.RUN_ERROR: BUSY,
    ErrorCode.RUN_LIVE: BUSY,
    ErrorCode.ADVISOR_UNAVAILABLE: UNAVAILABLE,
}


def problem_of(exc: ShokuninError) -> Problem:
    """The problem a user reads for an engine error met in the Advisor's chat."""
    return _BY_CODE.get(exc.code, INTERNAL)
