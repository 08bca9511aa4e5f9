"""The Studio face (seed 002): REST and Socket.IO in the seed's wire forms."""

from shokunin.api.studio import config, providers, rest, uploads
from shokunin.api.studio.socket import StudioSocket

# uploads first: POST /projects/{id}/files is not one of rest's /projects/{id}/{action}
routers = [uploads.router, rest.router, config.router, providers.router]

__all__ = ["StudioSocket", "routers"]
