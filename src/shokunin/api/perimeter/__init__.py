"""The perimeter every connection passes, one middleware a file: security headers, Host,
Origin, auth (and the login page), live connections' caps, declared body type and size."""
