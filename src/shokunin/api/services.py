"""Services: the engine parts one server holds, built once in the app's lifespan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shokunin.config import Settings
from shokunin.runs import EventBus, Runner
from shokunin.store import Store


@dataclass
class Services:
    settings: Settings
    store: Store
    bus: EventBus
    runner: Runner
    tools: Any
    sandbox: Any
    map_package: Any  # MapPackage, or the MapError that stopped it loading
    checkpointer: Any = None  # the server's one LangGraph checkpointer
    studio: Any = None  # the Studio service, None when its pipeline cannot be loaded

    def as_agent_services(self) -> dict[str, Any]:
        return {"settings": self.settings, "tools": self.tools, "sandbox": self.sandbox,
                "store": self.store, "map_package": self.map_package,
                "checkpointer": self.checkpointer}
