"""The layering contract (docs/dev/architecture.md): every import in the package,
function-local ones included, points down the layers.

    rules            nothing of ours
    ai               rules
    db               nothing of ours (the declarative base, engines)
    matches          rules, db
    scale            matches, rules, db
    server           rules, ai, matches, scale, db
    migrations       db and every package that owns tables (matches, scale, server)
    asgi, cli        anything below them; loadgen only from cli
    loadgen          nothing of ours but its own modules (it drives servers over HTTP)

``elgrande.cache`` (a small LRU) and the root package (its version) may be used by all.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "elgrande"
SHARED = {"cache", ""}  # elgrande.cache, and `import elgrande` (the version)
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "ai": {"rules"},
    "db": set(),
    "matches": {"rules", "db"},
    "scale": {"matches", "rules", "db"},
    "server": {"rules", "ai", "matches", "scale", "db"},
    "migrations": {"db", "matches", "scale", "server"},
    "asgi": {"server", "migrations", "db"},
    "cli": {"rules", "ai", "matches", "scale", "server", "db", "migrations", "asgi", "loadgen"},
    "loadgen": set(),
    "__main__": {"cli"},
    "cache": set(),
    "__init__": set(),
}


def _layer(module: str) -> str:
    """'elgrande.server.app' -> 'server'; 'elgrande' -> ''."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _module_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import of ours in the file, at any depth."""
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return [(line, name) for line, name in found
            if name == "elgrande" or name.startswith("elgrande.")]


def test_every_import_points_down_the_layers() -> None:
    wrong = []
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 50
    for path in files:
        source = _module_of(path)
        layer = _layer(source) if "." in source else "__init__"
        if path.name == "__main__.py" and path.parent == PACKAGE:
            layer = "__main__"
        assert layer in ALLOWED, f"{path}: a package the layering contract does not know"
        for line, target in imports_of(path):
            to = _layer(target)
            if to == layer or to in SHARED or to in ALLOWED[layer]:
                continue
            wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert not wrong, "imports that run up the layers:\n" + "\n".join(wrong)


def test_the_checker_sees_function_local_and_relative_imports() -> None:
    """The checker itself: relative imports are resolved, and imports inside functions
    are seen."""
    store = {name for _, name in imports_of(PACKAGE / "matches" / "store.py")}
    assert "elgrande.matches.tables" in store  # `from .tables import ...`
    app = {name for _, name in imports_of(PACKAGE / "server" / "app.py")}
    assert "elgrande.scale.pubsub" in app  # imported inside build_services


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_store_alone_imports_neither_the_web_app_nor_redis() -> None:
    code = (
        "import sys\n"
        "from elgrande.matches import MatchStore\n"
        "MatchStore('sqlite:///:memory:').close()\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('elgrande.server', "
        "'elgrande.scale', 'elgrande.migrations', 'redis', 'fastapi')))\n"
        "print(','.join(bad))\n")
    assert _run(code) == ""


def test_a_one_process_server_does_not_import_redis(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from elgrande.asgi import prepare_database\n"
        "from elgrande.server.app import create_app\n"
        "from elgrande.server.settings import Settings\n"
        f"url = 'sqlite:///{tmp_path / 'one.db'}'\n"
        "prepare_database(url)\n"
        "create_app(Settings(database_url=url, secret_key='k' * 32))\n"
        "print('redis' in sys.modules, 'elgrande.loadgen' in sys.modules)\n")
    assert _run(code) == "False False"
