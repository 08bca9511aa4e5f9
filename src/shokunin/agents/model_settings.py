"""The model the agents use, as the Models page saves it: read (the key masked), save, test.

Provider, base URL, model name and API key are kept in ``<data_dir>/model_settings.json``
by the tools' own settings store (``tools.SettingsStore``): written atomically with mode
0600, the key masked whenever it is read back (never sent anywhere in clear), and cleared
when the base URL moves to another host or the provider changes without the key being given
again, so a key never follows the settings to a server it was not meant for (another port
on the same host keeps it); a save says when it dropped the key (``key_cleared``).

Precedence: the environment wins. While ``SHOKUNIN_MODEL``, ``SHOKUNIN_MODEL_BASE_URL`` or
``SHOKUNIN_MODEL_API_KEY`` is set (or given in ``.env``) the saved settings are not used at
all (``apply_saved``), and the page says which variable decides.

When they take effect: when the engine next opens (``shokunin serve`` restarted). The
agents' brains are built with their model when the engine opens (offline or not decides the
brain), in every process, workers too; swapping them under running runs is not clean, so a
save says "after a restart" (``restart_needed``) and never claims more.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from dotenv import dotenv_values
from pydantic import SecretStr

from shokunin.config import Settings
from shokunin.models import ModelCheck, ModelConfigError, check_model, model_from_settings
from shokunin.tools import MASK, SettingsInvalid, SettingsStore

log = logging.getLogger(__name__)

FILE_NAME = "model_settings.json"
_KEY = "model"  # the store's entry
_ENVIRONMENT = {"model": "SHOKUNIN_MODEL", "model_base_url": "SHOKUNIN_MODEL_BASE_URL",
                "model_api_key": "SHOKUNIN_MODEL_API_KEY"}
PROVIDERS = ("offline", "openai", "anthropic", "ollama")
SCHEMA: dict[str, dict[str, Any]] = {
    "provider": {"type": "select", "default": "offline",
                 "options": [{"value": p, "label": p} for p in PROVIDERS]},
    "base_url": {"type": "string", "default": ""},
    "model": {"type": "string", "default": ""},
    "api_key": {"type": "string", "secret": True, "default": ""},
}


def _spec(values: dict[str, Any]) -> str:
    provider = values["provider"]
    return "offline" if provider == "offline" else f"{provider}:{values['model'].strip()}"


def _with(settings: Settings, values: dict[str, Any]) -> Settings:
    """``settings`` with its model settings replaced by ``values`` (the key in clear)."""
    key = values["api_key"]
    return settings.model_copy(update={
        "model": _spec(values), "model_base_url": values["base_url"].strip() or None,
        "model_api_key": SecretStr(key) if key else None})


def environment(environ: Mapping[str, str] | None = None,
                env_file: str | Path | None = None) -> list[str]:
    """The model variables the process environment (``os.environ``) or the ``.env`` file
    the settings read (``env_file``, by default ``Settings``' own) sets.

    Read from there, not from ``Settings.model_fields_set``: the settings ``apply_saved``
    makes from the saved ones mark those fields as set too, and saved values are not the
    environment's."""
    environ = os.environ if environ is None else environ
    file = Settings.model_config.get("env_file") if env_file is None else env_file
    names = {name.upper() for name in environ}
    if isinstance(file, (str, Path)) and Path(file).is_file():
        names |= {name.upper() for name, value in dotenv_values(file).items()
                  if value is not None}
    return [name for name in _ENVIRONMENT.values() if name in names]


def _store(settings: Settings) -> SettingsStore:
    return SettingsStore(settings.data_dir / FILE_NAME)


def apply_saved(settings: Settings) -> Settings:
    """The settings an engine opens with (and ``shokunin models test`` checks): the saved
    model settings in place of the defaults, unless the environment sets the model. Saved
    settings that cannot make a model are left out, with the reason logged."""
    store = _store(settings)
    if environment() or not store.stored(_KEY):
        return settings
    saved = _with(settings, store.effective(_KEY, SCHEMA))
    try:
        model_from_settings(saved)
    except ModelConfigError as exc:
        log.error("the saved model settings (%s) cannot be used: %s; using %s", saved.model,
                  exc, settings.model)
        return settings
    return saved


def _host(url: str) -> str | None:
    """The host a base URL names (its port and path left out: a server moved to another
    port on the same machine keeps its key); None for none (the provider's default)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url
    return parts.hostname.lower().rstrip(".") if parts.hostname else None


class ModelSettings:
    """The Models page's use case, for the engine opened with ``running`` (the settings
    ``apply_saved`` gave)."""

    def __init__(self, running: Settings) -> None:
        self.running = running
        self.store = _store(running)

    def view(self) -> dict[str, Any]:
        """What the page shows: the saved values (key masked), the model in use, the
        environment variables that decide instead, and whether a restart is needed."""
        env = environment()
        target = _with(self.running, self.store.effective(_KEY, SCHEMA))
        return {
            "schema": self.store.schema_view(_KEY, SCHEMA),
            "values": self.store.masked(_KEY, SCHEMA),
            "errors": self.store.problems(_KEY, SCHEMA),
            "in_use": {"model": self.running.model, "base_url": self.running.model_base_url,
                       "key_set": self.running.model_api_key is not None},
            "environment": env,
            "restart_needed": not env and _identity(target) != _identity(self.running),
        }

    def save(self, values: Any) -> dict[str, Any]:
        """Check and store ``values`` (the key sent back as the mask keeps the stored one);
        raises ``SettingsInvalid`` naming each field that cannot be used. Returns ``view()``
        and ``key_cleared``: why a stored key not given anew was dropped ("host": the base
        URL moved to another host; "provider"), else None. Another port or path on the same
        host keeps the key."""
        stored = self.store.effective(_KEY, SCHEMA)
        merged = self._merged(values)
        cleared = None
        if values.get("api_key", MASK) == MASK:  # the key not given anew: the stored one
            if stored["api_key"] and not merged["api_key"]:  # _merged dropped it: a move
                cleared = "provider" if merged["provider"] != stored["provider"] else "host"
            # Given explicitly as _merged decided: the store counts another port as another
            # host and would drop the key the same host keeps.
            values = {**values, "api_key": merged["api_key"] or None}
        self.store.save(_KEY, SCHEMA, values)
        return {**self.view(), "key_cleared": cleared}

    async def test(self, values: Any = None) -> ModelCheck:
        """The check ``shokunin models test`` runs, on ``values`` (the page's form, the key
        as the mask meaning the stored one; unsaved) or, without them, on what is saved."""
        merged = self._merged(values or {})
        return await check_model(_with(self.running, merged))

    def _merged(self, values: Any) -> dict[str, Any]:
        """The stored values with ``values`` over them, as a save would store them (a key
        not given anew does not follow a new host or provider); raises ``SettingsInvalid``
        for a field that cannot be used."""
        if not isinstance(values, dict):
            raise SettingsInvalid({"values": "must be an object of setting name to value"})
        stored = self.store.effective(_KEY, SCHEMA)
        errors: dict[str, str] = {}
        merged = dict(stored)
        for key, value in values.items():
            spec = SCHEMA.get(key)
            if spec is None:
                errors[str(key)] = "unknown setting"
            elif spec.get("secret") and value == MASK:
                continue
            elif value is None:
                merged[key] = spec["default"]
            elif not isinstance(value, str) or (spec["type"] == "select" and value not in
                                                 PROVIDERS):
                errors[key] = ("must be one of " + ", ".join(PROVIDERS) if spec["type"] ==
                               "select" else "must be a string")
            else:
                merged[key] = value
        if errors:
            raise SettingsInvalid(errors)
        if values.get("api_key") in (None, MASK) and (
                merged["provider"] != stored["provider"]
                or _host(merged["base_url"]) != _host(stored["base_url"])):
            merged["api_key"] = ""
        if merged["provider"] != "offline" and not merged["model"].strip():
            raise SettingsInvalid({"model": "name the model (gpt-4.1-mini, qwen2.5 ...)"})
        try:
            model_from_settings(_with(self.running, merged))
        except ModelConfigError as exc:
            field = "api_key" if "API key" in str(exc) else "provider"
            raise SettingsInvalid({field: str(exc)}) from None
        return merged


def _identity(settings: Settings) -> tuple[str, str | None, str | None]:
    key = settings.model_api_key.get_secret_value() if settings.model_api_key else None
    return settings.model, settings.model_base_url, key
