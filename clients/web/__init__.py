"""The browser client: static files served by the gateway."""
