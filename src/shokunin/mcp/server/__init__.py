"""shokunin as an MCP server: its tools and faces over stdio (``shokunin mcp serve``) and at
``/mcp`` (streamable HTTP)."""

import lazy_loader

# Names are imported on first use: the web server routes ``/mcp`` at start, and imports
# the SDK only when a request comes (``http.mcp_http_app``, opened by ``api.lazy_app``).
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "app": ["build_server", "serve_stdio"],
    "http": ["MCP_PATH", "mcp_http_app"],
})
