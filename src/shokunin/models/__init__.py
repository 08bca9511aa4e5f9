"""Chat models: ``resolve(spec)``, the offline marker, the scripted model, usage recording,
the providers' rules for tool declarations, one error class (and message) per way a model
call fails, and the check that a model answers."""

from shokunin.models.check import CHECK_TIMEOUT_SEC, ModelCheck, announce, check_model
from shokunin.models.declarations import (
    MAX_DESCRIPTION,
    DeclarationError,
    check_function,
    check_tool,
    function_problems,
    usable_tools,
)
from shokunin.models.errors import (
    ModelCallError,
    ModelKeyRefused,
    ModelRateLimited,
    ModelTimedOut,
    ModelUnknown,
    ModelUnreachable,
    classify,
    explain,
    model_url,
)
from shokunin.models.offline import OfflineChatModel, is_offline
from shokunin.models.resolve import ModelConfigError, model_from_settings, resolve
from shokunin.models.scripted import (
    ScriptedChatModel,
    register_script,
    scripted_model,
    unregister_script,
)
from shokunin.models.structured import Structured, ask_structured
from shokunin.models.usage import Usage, UsageRecorder

__all__ = [
    "CHECK_TIMEOUT_SEC", "MAX_DESCRIPTION", "DeclarationError", "ModelCallError", "ModelCheck",
    "ModelConfigError", "ModelKeyRefused", "ModelRateLimited", "ModelTimedOut", "ModelUnknown",
    "ModelUnreachable", "OfflineChatModel", "ScriptedChatModel", "Structured", "Usage",
    "UsageRecorder", "announce", "ask_structured", "check_function", "check_model", "check_tool",
    "classify", "explain", "function_problems", "is_offline", "model_from_settings",
    "model_url", "register_script", "resolve", "scripted_model", "unregister_script",
    "usable_tools",
]
