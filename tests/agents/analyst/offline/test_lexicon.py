"""The bilingual header lexicon: every form names one concept only, is written as a header
is matched (lower case English, or Japanese), and analysis operations stay out of it."""

from __future__ import annotations

import re
from collections import Counter

from shokunin.agents.analyst.offline.lexicon import BILINGUAL

_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
# Non-ASCII symbols that appear in English headers ("km²", "±", "w–l").
_SYMBOLS = set("²±–")
# The operations table's words: allowed only inside a longer header phrase.
_OPERATIONS = {"total", "sum", "average", "avg", "mean", "count", "number", "max", "min",
               "most", "top", "合計", "総計", "平均", "件数", "最大", "最小", "数"}

FORMS = [form for concept in BILINGUAL for form in concept]


def test_at_least_200_concepts() -> None:
    assert len(BILINGUAL) >= 200


def test_no_form_in_two_concepts() -> None:
    repeated = sorted(form for form, n in Counter(FORMS).items() if n > 1)
    assert not repeated, repeated


def test_forms_are_lower_case_or_japanese() -> None:
    for form in FORMS:
        assert form and form == form.strip() and "  " not in form, repr(form)
        assert form == form.lower(), form
        foreign = {c for c in form if not c.isascii()} - _SYMBOLS
        assert not foreign or _JAPANESE.search(form), form


def test_no_one_letter_english_forms() -> None:
    assert not [form for form in FORMS if len(form) == 1 and form.isascii() and form.isalpha()]


def test_each_concept_starts_with_english() -> None:
    assert all(concept and not _JAPANESE.search(concept[0]) for concept in BILINGUAL)


def test_no_bare_operation_words() -> None:
    assert not [form for form in FORMS if form in _OPERATIONS]
