"""A reviewer's feedback on an offline draft: what the offline brain can do with it, and
words that say what it did.

Without a model, free-text feedback (「敵をもっと増やして」) cannot be written into a draft.
An explicit replacement can: 「敵 2 種」を「敵 3 種」に (or ``敵 2 種 → 敵 3 種`` on a line
of its own) is made wherever the old text stands. The summary then names what was changed,
and says plainly what was not: it is written from the draft as it now is, never from the
request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

_QUOTED = re.compile(r"「([^「」\n]{1,200})」\s*を\s*「([^「」\n]{0,200})」\s*に")
_ARROW = re.compile(r"^[ \t]*([^\n→]{1,200}?)[ \t]*(?:→|->)[ \t]*([^\n→]{0,200}?)[ \t]*$",
                    re.MULTILINE)
# what is left of a request once its replacements are taken out, when it asks nothing more
_REQUEST_WORDS = re.compile(r"して|ください|下さい|変更|変えて|置き換え|直して|お願い|します|"
                            r"ます|[てにをはもね、。,.!！\s]")
FEEDBACK_CHARS = 200  # of the feedback quoted in a summary
MODEL_HINT = "SHOKUNIN_MODEL を設定すると、モデルが指摘を反映して書き直します。"

Model = TypeVar("Model", bound=BaseModel)


@dataclass
class Revision:
    """What applying feedback did: replacements made (old, new, places), not found, and
    whether the feedback asked for more than replacements."""

    made: list[tuple[str, str, int]] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    more: bool = False

    def summary(self, attempt: int, feedback: str) -> str:
        """The revision's note for a summary: what changed in the body, what did not."""
        offline = "（オフラインでは本文を書き換えられません）"
        if not self.made and not self.absent:
            return (f"修正 {attempt} 回目: 指摘「{feedback[:FEEDBACK_CHARS]}」は本文に反映して"
                    f"いません{offline}")
        parts = ["、".join(f"「{old}」を「{new}」に変更" for old, new, _ in self.made)]
        if self.absent:
            absent = "、".join(f"「{old}」" for old in self.absent)
            parts.append(f"{absent}は本文にないため変更なし")
        if self.more:
            parts.append(f"ほかの指摘は本文に反映していません{offline}")
        return f"修正 {attempt} 回目: " + "。".join(p for p in parts if p)

    def section(self, feedback: str) -> str:
        """The body of a document's "レビューへの対応" section."""
        lines = [f"指摘: {feedback[:2000]}"]
        lines += [f"変更: 「{old}」→「{new}」（{count} 箇所）" for old, new, count in self.made]
        lines += [f"変更なし: 「{old}」は本文にありません" for old in self.absent]
        if self.more or not (self.made or self.absent):
            what = "置き換え以外の指摘" if self.made or self.absent else "この指摘"
            lines.append(f"オフラインの下書きのため、{what}は本文に反映していません"
                         "（「A」を「B」に、の形の置き換えだけはオフラインでも行います）。"
                         + MODEL_HINT)
        return "\n".join(lines)


def replacements(feedback: str) -> list[tuple[str, str]]:
    """The replacements the feedback spells out: 「A」を「B」に, or ``A → B`` lines."""
    found = [(a, b) for a, b in _QUOTED.findall(feedback)]
    found += [(a.strip("「」"), b.strip("「」")) for a, b in _ARROW.findall(
        _QUOTED.sub("", feedback)) if a.strip("「」")]
    return list(dict.fromkeys(found))


def revise(data: Model, feedback: str) -> tuple[Model, Revision]:
    """``data`` with the feedback's replacements made in every text of it, and what was done.
    A replacement that would make the output invalid (a file path's pattern) is not made."""
    revision = Revision()
    for old, new in replacements(feedback):
        changed, count = _replace(data.model_dump(), old, new)
        if not count:
            revision.absent.append(old)
            continue
        try:
            data = type(data).model_validate(changed)
        except ValidationError:
            revision.absent.append(old)
            continue
        revision.made.append((old, new, count))
    rest = _REQUEST_WORDS.sub("", _ARROW.sub("", _QUOTED.sub("", feedback)))
    revision.more = len(rest) >= 2
    return data, revision


def _replace(value: Any, old: str, new: str) -> tuple[Any, int]:
    if isinstance(value, str):
        return value.replace(old, new), value.count(old)
    if isinstance(value, list):
        done = [_replace(v, old, new) for v in value]
        return [v for v, _ in done], sum(n for _, n in done)
    if isinstance(value, dict):
        done_items = {k: _replace(v, old, new) for k, v in value.items()}
        return {k: v for k, (v, _) in done_items.items()}, sum(
            n for _, n in done_items.values())
    return value, 0
