"""/readyz with a real Redis configured: ready while it answers, 503 naming Redis
while it is stopped, ready again when it is back."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.scale.servers import RedisServer


def test_readyz_follows_redis(tmp_path: Path, redis_server: RedisServer) -> None:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 't.db'}", secret_key="k" * 32,
                           bot_delay=0.0, pubsub_url=redis_server.url))
    with TestClient(app) as client:
        assert client.get("/readyz").json() == {"ready": True, "database": "ok",
                                                "redis": "ok"}
        redis_server.stop()
        down = client.get("/readyz")
        assert down.status_code == 503
        assert down.json() == {"ready": False, "database": "ok", "redis": "down"}
        assert client.get("/healthz").status_code == 200
        redis_server.start()
        assert client.get("/readyz").status_code == 200
