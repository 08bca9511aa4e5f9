"""The shipped Analyst samples: reproducible from their script, small, and read as meant."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from shokunin.agents.analyst import detect_source, profile_file
from shokunin.data import make_analyst_samples

SHIPPED = make_analyst_samples.OUT
SAMPLES = {  # name -> (encoding, rows, a numeric column)
    "sales_ja_cp932.csv": ("cp932", 12 * 5 * 7, "売上高"),
    "survey_ja.csv": ("utf-8", 300, "満足度"),
    "sales_en.csv": ("utf-8", 12 * 5 * 4, "revenue"),
    "sensors_en.csv": ("utf-8", 3 * 24 * 21, "temperature_c"),
}


def test_samples_match_their_generator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(make_analyst_samples, "OUT", tmp_path)
    make_analyst_samples.main()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(SAMPLES)
    for name in SAMPLES:
        assert (tmp_path / name).read_bytes() == (SHIPPED / name).read_bytes(), name


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_sample_is_small_and_profiles_as_meant(name: str) -> None:
    encoding, rows, column = SAMPLES[name]
    path = SHIPPED / name
    assert path.stat().st_size < 200 * 1024
    source, profile = profile_file(path, detect_source(path))
    assert (source.encoding.encoding, source.delimiter, source.header) == (encoding, ",", True)
    assert profile.rows == rows
    values = [float(row[column]) for row in csv.DictReader(
        io.StringIO(path.read_bytes().decode(encoding), newline="")) if row[column]]
    profiled = {c.name: c for c in profile.columns}[column]
    assert profiled.mean == pytest.approx(sum(values) / len(values), rel=1e-12)
    assert profiled.null_count == rows - len(values)
