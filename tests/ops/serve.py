"""A real `elgrande serve` process for the operations tests, on a free loopback port,
with its own database file and settings (ELGRANDE_* variables)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

KEY = "ops-test-secret-key-0123456789"
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
ADDRESS = re.compile(r"running at (http://\S+)/ ")


class Serve:
    def __init__(self, folder: Path, database_url: str | None = None, **settings: str) -> None:
        self.folder = folder
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            **{name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ},
            "ELGRANDE_DATABASE_URL": database_url or f"sqlite:///{folder / 'serve.db'}",
            "ELGRANDE_SECRET_KEY": KEY, "ELGRANDE_BOT_DELAY": "0",
            **{f"ELGRANDE_{name.upper()}": value for name, value in settings.items()}}
        self.log = folder / "serve.log"
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def __enter__(self) -> Serve:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "elgrande", "serve", "--port", "0"], cwd=self.folder,
            env=self.env, stdout=subprocess.PIPE, stderr=open(self.log, "w"), text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # printed once it listens
        found = ADDRESS.search(line)
        if not found:
            self.stop()
            raise RuntimeError(f"serve did not start: {line}{self.log.read_text()[-2000:]}")
        self.url = found.group(1)
        deadline = time.monotonic() + 30
        while httpx.get(self.url + "/healthz", timeout=5).status_code != 200:
            if time.monotonic() > deadline:
                raise RuntimeError("serve is not healthy")
            time.sleep(0.05)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://")

    def play_now(self) -> tuple[httpx.Client, int]:
        """A guest's client (its cookies) and the id of its new game against two bots."""
        client = httpx.Client(base_url=self.url, timeout=30)
        token = CSRF.search(client.get("/login").text)
        assert token, "no CSRF token on /login"
        answer = client.post("/play-now", data={"csrf_token": token.group(1)})
        assert answer.status_code == 303, answer.text
        return client, int(answer.headers["location"].rsplit("/", 1)[1])
