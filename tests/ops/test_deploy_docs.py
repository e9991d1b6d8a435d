"""docs/deploy.md stays true: it names every setting (details in the generated table of
docs/server.md), and its uvicorn command lines bound WebSocket frames and leave out
per-message deflate as `serve` does by default."""

from __future__ import annotations

import re
from pathlib import Path

from elgrande.asgi import ws_frame_limit
from elgrande.server.game_sockets import GAME_SOCKETS
from elgrande.server.settings import Settings, env_name

DEPLOY = (Path(__file__).resolve().parents[2] / "docs" / "deploy.md").read_text()


def test_every_setting_is_in_deploy_md() -> None:
    missing = [env_name(f) for f in Settings.model_fields if env_name(f) not in DEPLOY]
    assert not missing, f"docs/deploy.md does not mention {missing}"
    assert "(server.md#settings)" in DEPLOY


def test_every_uvicorn_command_bounds_frames_like_serve() -> None:
    default = ws_frame_limit(Settings(secret_key="k" * 32))
    commands = re.findall(r"uvicorn --factory elgrande\.asgi:create_app[^`]*?--no-access-log",
                          DEPLOY, re.S)
    assert len(commands) >= 2
    for command in commands:
        assert f"--ws-max-size {default}" in command, command
        # as `serve` by default (ELGRANDE_WS_DEFLATE)
        assert "--ws-per-message-deflate false" in command, command
        # the game pages' sockets served as `serve` serves them (server/game_sockets.py)
        assert f"--ws {GAME_SOCKETS}" in command, command
