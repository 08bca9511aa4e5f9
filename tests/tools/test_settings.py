"""Settings: schema types, validation per field, atomic 0600 file, secrets masked."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from shokunin.tools import MASK, SettingsInvalid, ToolRegistry


def test_defaults_and_masked_view(registry: ToolRegistry) -> None:
    view = registry.get_settings("probe")
    assert view["values"] == {"api_key": "", "limit": 10, "ratio": 0.5, "verbose": False,
                              "timeout_sec": 120.0}
    assert view["schema"]["api_key"]["is_set"] is False
    assert view["schema"]["timeout_sec"]["type"] == "number"


def test_save_validates_every_field(registry: ToolRegistry) -> None:
    with pytest.raises(SettingsInvalid) as caught:
        registry.save_settings("probe", {"limit": 0, "ratio": "x", "verbose": 1,
                                         "api_key": 5, "nope": 1, "timeout_sec": -1})
    assert caught.value.errors == {
        "limit": "must be at least 1", "ratio": "must be a number", "verbose": "must be a boolean",
        "api_key": "must be a string", "nope": "unknown setting",
        "timeout_sec": "must be at least 0.1"}
    with pytest.raises(SettingsInvalid):
        registry.save_settings("probe", {"limit": True})  # a bool is not an integer
    with pytest.raises(SettingsInvalid):
        registry.save_settings("probe", ["limit"])


def test_file_is_atomic_private_and_keyed_by_tool(registry: ToolRegistry, tmp_path: Path) -> None:
    values = registry.save_settings("probe", {"api_key": "sk-secret", "limit": 5})
    assert values["api_key"] == MASK and values["limit"] == 5
    path = tmp_path / "userdata" / "s.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"probe": {"api_key": "sk-secret", "limit": 5}}
    assert [p.name for p in path.parent.iterdir()] == ["s.json"]  # no temp file left


def test_mask_round_trip_keeps_the_secret(registry: ToolRegistry, tmp_path: Path) -> None:
    registry.save_settings("probe", {"api_key": "sk-secret"})
    shown = registry.get_settings("probe")
    assert shown["values"]["api_key"] == MASK and shown["schema"]["api_key"]["is_set"]
    assert "sk-secret" not in json.dumps(shown)
    registry.save_settings("probe", {**shown["values"], "limit": 7})
    stored = json.loads((tmp_path / "userdata" / "s.json").read_text())["probe"]
    assert stored["api_key"] == "sk-secret" and stored["limit"] == 7
    registry.save_settings("probe", {"api_key": None})  # back to the default
    assert registry.get_settings("probe")["schema"]["api_key"]["is_set"] is False


def test_corrupt_file_is_kept_aside(registry: ToolRegistry, tmp_path: Path) -> None:
    path = tmp_path / "userdata" / "s.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert registry.get_settings("probe")["values"]["limit"] == 10
    assert any(p.name.startswith("s.json.corrupt-") for p in path.parent.iterdir())
    registry.save_settings("probe", {"limit": 3})
    assert registry.get_settings("probe")["values"]["limit"] == 3


def test_hand_edits_are_picked_up(registry: ToolRegistry, tmp_path: Path) -> None:
    registry.save_settings("probe", {"limit": 3})
    path = tmp_path / "userdata" / "s.json"
    path.write_text(json.dumps({"probe": {"limit": 4}}))
    os.utime(path, ns=(1, 1))
    assert registry.get_settings("probe")["values"]["limit"] == 4


def test_required_settings_unset_are_named_in_groups() -> None:
    from shokunin.tools import ToolLoadError
    from shokunin.tools.settings_schema import check_settings_schema, unset_required

    schema = check_settings_schema({
        "key": {"type": "secret", "required": True},
        "a": {"type": "string", "default": "", "required": "either"},
        "b": {"type": "string", "default": "", "required": "either"},
        "plain": {"type": "string", "default": ""}})
    assert unset_required(schema, {"key": "", "a": "  ", "b": None}) == [["key"], ["a", "b"]]
    assert unset_required(schema, {"key": "k", "a": "", "b": "x"}) == []
    for bad in (1, "", "  ", None):
        with pytest.raises(ToolLoadError, match="required must be"):
            check_settings_schema({"x": {"type": "string", "required": bad}})
