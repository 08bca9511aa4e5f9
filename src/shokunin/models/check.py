"""Does the configured model answer? One small call, timed: what ``shokunin models test``,
the Models page's Test button and ``serve``'s start-up check all run.

A failure is told by its class's message (``errors.py``); a spec that cannot be resolved by
``ModelConfigError``'s; anything else by the provider's own words, after the URL.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from langchain_core.messages import HumanMessage
from langgraph.constants import TAG_NOSTREAM

from shokunin.config import Settings
from shokunin.errors import ShokuninError
from shokunin.models.errors import ModelTimedOut, classify, model_url
from shokunin.models.offline import is_offline
from shokunin.models.resolve import ModelConfigError, model_from_settings

log = logging.getLogger(__name__)
CHECK_TIMEOUT_SEC = 15.0  # a check waits this long at most (or the model's own, if shorter)
PROMPT = "Reply with the word OK and nothing else."
OFFLINE = {"ja": "モデル未設定（offline）: オフラインの頭脳が答えます。呼ぶモデルはありません。",
           "en": "No model is configured (offline): the offline brains answer; there is no "
                 "model to call."}


@dataclass(frozen=True)
class ModelCheck:
    """What one check found: ``ok`` with ``latency_ms``, or the ``error``; ``offline``
    when no model is configured (nothing was called)."""

    spec: str
    url: str | None = None
    latency_ms: int | None = None
    error: BaseException | None = None
    offline: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    def said(self, language: str) -> str:
        """The outcome in ``language``, one sentence."""
        ja = language.lower().startswith("ja")
        if self.offline:
            return OFFLINE["ja" if ja else "en"]
        if self.error is None:
            return (f"OK: {self.spec} が {self.latency_ms} ms で応答しました（{self.url}）。" if ja
                    else f"OK: {self.spec} answered in {self.latency_ms} ms ({self.url}).")
        if isinstance(self.error, ShokuninError):
            return self.error.said(language)
        detail = str(self.error).strip().splitlines()[0][:300] if str(self.error).strip() \
            else type(self.error).__name__
        return (f"モデル {self.url} がエラーを返しました: {detail}" if ja
                else f"The model at {self.url} answered with an error: {detail}")


async def check_model(settings: Settings, timeout: float = CHECK_TIMEOUT_SEC) -> ModelCheck:
    """Resolve the model ``settings`` name and ask it for one word, without the client's
    retries, within ``timeout`` seconds."""
    limit = min(timeout, settings.model_timeout_sec)
    try:
        model = model_from_settings(settings, timeout=limit, max_retries=0)
    except ModelConfigError as exc:
        return ModelCheck(settings.model, error=exc)
    if is_offline(model):
        return ModelCheck(settings.model, offline=True)
    url = model_url(model)
    started = time.perf_counter()
    try:
        async with asyncio.timeout(limit + 1):  # the client's own timeout comes first
            await model.with_config(tags=[TAG_NOSTREAM]).ainvoke([HumanMessage(PROMPT)])
    except TimeoutError:
        return ModelCheck(settings.model, url, error=ModelTimedOut(url, limit=f"{limit:g}"))
    except Exception as exc:  # noqa: BLE001 - the check reports every failure
        return ModelCheck(settings.model, url, error=classify(exc, model) or exc)
    return ModelCheck(settings.model, url, latency_ms=round((time.perf_counter() - started)
                                                            * 1000))


async def announce(settings: Settings) -> None:
    """``serve``'s start-up check, run in the background: one log line saying whether the
    configured model answers. Nothing for the offline brain or a scripted model (a test's
    replies are its own), and no call."""
    provider = settings.model.strip().partition(":")[0]
    if provider in ("offline", "scripted"):
        return
    result = await check_model(settings)
    if result.ok:
        log.info("model %s answers (%d ms at %s)", settings.model, result.latency_ms, result.url)
    else:
        log.warning("model %s does not answer: %s", settings.model, result.said("en"))
