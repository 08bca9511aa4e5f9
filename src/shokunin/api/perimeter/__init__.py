"""The perimeter every connection passes, one middleware a file: security headers, Host,
Origin, auth (and the login page), live connections' caps, declared body type and size."""

from shokunin.api.perimeter import login
from shokunin.api.perimeter.auth import AuthMiddleware
from shokunin.api.perimeter.body_limit import BodyLimitMiddleware
from shokunin.api.perimeter.client_gone import unless_client_leaves
from shokunin.api.perimeter.content_type import ContentTypeMiddleware
from shokunin.api.perimeter.host import HostMiddleware, is_loopback_name
from shokunin.api.perimeter.live import REVOKED_MESSAGE, Lease, LiveConnections, TooManyStreams
from shokunin.api.perimeter.live_middleware import LiveMiddleware
from shokunin.api.perimeter.origin import OriginMiddleware
from shokunin.api.perimeter.security_headers import SecurityHeadersMiddleware

routers = [login.router]  # the login page

__all__ = ["REVOKED_MESSAGE", "AuthMiddleware", "BodyLimitMiddleware", "ContentTypeMiddleware",
           "HostMiddleware", "Lease", "LiveConnections", "LiveMiddleware", "OriginMiddleware",
           "SecurityHeadersMiddleware", "TooManyStreams", "is_loopback_name", "routers",
           "unless_client_leaves"]
