"""The example at the top of docs/matches.md runs (on a temporary database)."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "matches.md"


def test_the_example_runs(tmp_path: Path) -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None
    source = code.group(1).replace("sqlite:///elgrande.db", f"sqlite:///{tmp_path / 'doc.db'}")
    namespace: dict = {}
    exec(compile(source, str(DOC), "exec"), namespace)
    assert namespace["v"].to_act != [namespace["seat"]]  # the turn passed on
