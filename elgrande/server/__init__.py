"""The web app: `create_app(settings)` builds it (elgrande/server/app.py, the composition
root), `elgrande serve` runs it (docs/server.md)."""
