"""The Studio face (seed 002): REST and Socket.IO in the seed's wire forms."""

from shokunin.api.studio import (
    agent_tabs,
    client_settings,
    config,
    costs,
    interventions,
    providers,
    rest,
    settings_panels,
    uploads,
)
from shokunin.api.studio.socket_app import studio_socket_app

routers = [rest.router, uploads.router, config.router, providers.router, costs.router,
           interventions.router, agent_tabs.router, client_settings.router,
           settings_panels.router]

__all__ = ["routers", "studio_socket_app"]
