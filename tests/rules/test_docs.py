"""The examples in the documentation run."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_notation_doctests() -> None:
    result = doctest.testfile(str(DOCS / "notation.md"), module_relative=False)
    assert result.attempted > 0 and result.failed == 0


def test_api_example_plays_a_game() -> None:
    text = (DOCS / "api.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    namespace: dict = {}
    exec(compile(code.group(1), "docs/api.md", "exec"), namespace)
    assert namespace["is_terminal"](namespace["state"])
