"""A correlation is worded by what Pearson's r measures (issue 49.4): a weak linear
correlation is called weak, never "nonlinear", with its strength and sign, and one that is
not significant is said to be none."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest

from shokunin.agents.analyst import kernel_code
from shokunin.agents.analyst import offline as planner
from shokunin.agents.analyst.profile import frame_profile


def _said(df: pd.DataFrame, question: str) -> tuple[str, dict[str, object]]:
    task = planner.plan(question, frame_profile(df, format="csv", engine="pandas"))
    assert isinstance(task, planner.Task), task
    namespace: dict[str, object] = {"df": df, "TABLE_MARKDOWN": [], "JSON_OUT": []}
    exec(kernel_code.CELL_HELPERS, namespace)  # noqa: S102 - our own code, as the kernel runs it
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(task.code, namespace)  # noqa: S102
    return out.getvalue(), namespace["JSON_OUT"][0]  # type: ignore[index]


def _pair(r: float, n: int, seed: int = 3) -> pd.DataFrame:
    """Two columns whose sample correlation is close to ``r``."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = r * x + np.sqrt(1 - r * r) * rng.normal(size=n)
    return pd.DataFrame({"Age": x * 14 + 30, "Fare": y * 50 + 32})


@pytest.mark.parametrize(("r", "n", "en", "ja"), [
    (0.1, 2000, "very weak positive linear correlation", "ごく弱い正の線形相関"),
    (-0.3, 500, "weak negative linear correlation", "弱い負の線形相関"),
    (0.55, 300, "moderate positive linear correlation", "中程度の正の線形相関"),
    (-0.9, 100, "strong negative linear correlation", "強い負の線形相関"),
])
def test_a_significant_correlation_is_worded_by_its_strength_and_sign(
        r: float, n: int, en: str, ja: str) -> None:
    df = _pair(r, n)
    said, result = _said(df, "correlation between Age and Fare")
    assert "nonlinear" not in said and "非線形" not in said
    actual = df.Age.corr(df.Fare)
    assert f"{en} (r = {actual:.3f}, p " in said
    assert f"{ja}（r = {actual:.3f}、p " in said
    assert (result["direction"], result["significant"]) == (
        "positive" if r > 0 else "negative", True)


def test_a_correlation_that_is_not_significant_is_said_to_be_none() -> None:
    df = _pair(0.0, 30, seed=11)
    said, result = _said(df, "AgeとFareの相関")
    assert result["significant"] is False
    assert "no significant linear correlation (r = " in said
    assert "有意な線形相関はありません（r = " in said
    assert "positive" not in said and "negative" not in said
