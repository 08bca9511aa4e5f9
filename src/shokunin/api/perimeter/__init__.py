"""The perimeter every connection passes, one middleware a file: security headers, Host,
Origin, auth (and the login page), live connections' caps, declared body type and size."""

from shokunin.api.perimeter import login
from shokunin.api.perimeter.auth import AuthMiddleware
from shokunin.api.perimeter.body_limit import BodyLimitMiddleware
from shokunin.api.perimeter.content_type import ContentTypeMiddleware
from shokunin.api.perimeter.host import HostMiddleware
from shokunin.api.perimeter.live import LiveConnections
from shokunin.api.perimeter.live_middleware import LiveMiddleware
from shokunin.api.perimeter.origin import OriginMiddleware
from shokunin.api.perimeter.security_headers import SecurityHeadersMiddleware

routers = [login.router]  # the login page

__all__ = ["AuthMiddleware", "BodyLimitMiddleware", "ContentTypeMiddleware", "HostMiddleware",
           "LiveConnections", "LiveMiddleware", "OriginMiddleware", "SecurityHeadersMiddleware",
           "routers"]
