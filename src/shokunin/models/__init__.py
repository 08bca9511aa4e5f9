"""Chat models: ``resolve(spec)``, the offline marker, the scripted model, usage recording."""

from shokunin.models.offline import OfflineChatModel, is_offline
from shokunin.models.resolve import ModelConfigError, resolve
from shokunin.models.scripted import (
    ScriptedChatModel,
    register_script,
    scripted_model,
    unregister_script,
)
from shokunin.models.usage import UsageRecorder

__all__ = [
    "ModelConfigError", "OfflineChatModel", "ScriptedChatModel", "UsageRecorder", "is_offline",
    "register_script", "resolve", "scripted_model", "unregister_script",
]
