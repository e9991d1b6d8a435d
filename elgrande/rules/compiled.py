"""Which engine this process runs: the pure-Python source or its compiled build.

The engine's modules can be compiled with mypyc (``scripts/build_compiled_engine.py``,
``make compiled``): the same source, two to three times as fast. The build goes to a folder of its
own, ``build/compiled-engine/<EXT_SUFFIX>/elgrande/rules/``, never next to the source, so
the source stays importable as the pure engine, the reference the compiled one is tested
against (docs/compiled-engine.md).

The bots' search (``BOT_SEARCH``) is compiled in the same build, into
``.../elgrande/ai/``: it runs the engine in its inner loop, and in one build its calls into
the engine stay native. It runs compiled exactly when the engine does: ``elgrande.ai``
calls ``attach()`` (and ``load_package()`` for a frozen bot's package).

``elgrande/rules/__init__.py`` calls ``choose()`` before it imports any other module of
the package: when the compiled engine is chosen, its folder goes first in the package's
``__path__``, so ``elgrande.rules.engine`` and the others load from there. This module
and the package's ``__init__`` are never compiled.

``ELGRANDE_ENGINE`` chooses:

- ``auto`` (the default): the compiled engine when its build is there and was made from
  exactly these sources, else the pure one: quietly when there is no build, with a
  warning when the build is stale (a source changed since) or does not load;
- ``pure``: always the pure engine;
- ``compiled``: the compiled engine, or ImportError when it cannot be used.

Standard library only, like the whole package.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
import sysconfig
import warnings
from collections.abc import MutableSequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

#: The environment variable that chooses the engine, and its values.
ENV = "ELGRANDE_ENGINE"
CHOICES = ("auto", "pure", "compiled")
#: Another build folder (the one holding ``elgrande/rules/``) than ``build_dir()``'s default.
BUILD_ENV = "ELGRANDE_ENGINE_BUILD"
#: The folder of the package's source.
SOURCE_DIR = Path(__file__).resolve().parent
#: Where builds go: one folder per interpreter ABI under the project's ``build/``.
BUILD_ROOT = SOURCE_DIR.parents[1] / "build" / "compiled-engine"
#: The bots' modules compiled with the engine, relative to the ``elgrande`` folder: their
#: search (evaluation, playouts, the ISMCTS tree) and the frozen baseline's copy of it,
#: which duels play most. ``ai/base.py`` too: the bots' classes derive from its ``Bot``,
#: and a compiled class can only derive from a compiled one.
BOT_SEARCH = ("ai/base.py", "ai/evaluate.py", "ai/heuristic.py", "ai/ismcts.py", "ai/plans.py",
              "ai/value.py",
              "ai/frozen/hard_2026_12/evaluate.py", "ai/frozen/hard_2026_12/ismcts.py")
#: The build's record of what it was made from, next to the compiled modules.
MANIFEST = "manifest.json"
#: The shared library of the compiled modules (mypyc's group), inside the package.
SHARED_LIB = "native__mypyc"
#: Modules that are never compiled: this one and the package's __init__ (they choose),
#: and the event records (Python classes made by ``dataclass`` at import time, which mypyc
#: compiles wrongly; they are no hot path).
NOT_COMPILED = ("__init__.py", "compiled.py", "events.py")


class StaleBuild(Warning):
    """The compiled engine is there but was built from other sources (or does not load);
    the pure engine runs instead. Run ``make compiled``."""


@dataclass(frozen=True)
class Choice:
    """What ``choose()`` decided: ``engine`` is ``"pure"`` or ``"compiled"``; ``reason``
    says why in a few words; ``directory`` is the compiled modules' folder, or None."""

    engine: str
    reason: str
    directory: Path | None = None


def compiled_sources() -> list[Path]:
    """The modules a build compiles, in a stable order: the engine's, then the bots'."""
    engine = sorted(p for p in SOURCE_DIR.glob("*.py") if p.name not in NOT_COMPILED)
    return engine + [SOURCE_DIR.parent / name for name in BOT_SEARCH]


def source_name(path: Path) -> str:
    """A compiled module's name in manifests and digests: its path under ``elgrande/``."""
    return path.relative_to(SOURCE_DIR.parent).as_posix()


def source_digest() -> str:
    """SHA-256 of the compiled modules' names and contents: a build is fresh when its
    manifest records this digest."""
    h = hashlib.sha256()
    for path in compiled_sources():
        data = path.read_bytes()
        h.update(f"{source_name(path)}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def build_dir() -> Path:
    """The build folder of this interpreter (its extension-module suffix names it), or
    ``$ELGRANDE_ENGINE_BUILD`` when set."""
    if os.environ.get(BUILD_ENV):
        return Path(os.environ[BUILD_ENV])
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return BUILD_ROOT / suffix.strip(".").removesuffix(".so").replace(".", "-")


def package_dir(root: Path | None = None, package: str = "elgrande.rules") -> Path:
    """The folder holding a build's compiled modules of ``package`` (``elgrande.rules``,
    ``elgrande.ai``, ...)."""
    return (root or build_dir()).joinpath(*package.split("."))


def read_manifest(root: Path | None = None) -> dict | None:
    try:
        data = json.loads((package_dir(root) / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def build_state(root: Path | None = None) -> tuple[str, Path]:
    """(``"missing"``, ``"stale"`` or ``"fresh"``, the compiled modules' folder)."""
    folder = package_dir(root)
    manifest = read_manifest(root)
    if manifest is None:
        return "missing", folder
    if manifest.get("digest") != source_digest():
        return "stale", folder
    return "fresh", folder


def choose(package_path: list[str], requested: str | None = None) -> Choice:
    """Decide the engine (``requested``, else ``$ELGRANDE_ENGINE``, else ``auto``) and,
    for the compiled one, put its folder first in ``package_path`` (the package's
    ``__path__``). Called once, by the package's ``__init__``."""
    wanted = (requested or os.environ.get(ENV) or "auto").strip().lower()
    if wanted not in CHOICES:
        raise ImportError(f"{ENV}={wanted!r}: expected one of {', '.join(CHOICES)}")
    if wanted == "pure":
        return Choice("pure", f"{ENV}=pure")
    state, folder = build_state()
    if state != "fresh":
        why = (f"no compiled build in {folder.parents[1]}" if state == "missing" else
               "the compiled build is stale: the sources changed since it was built")
        if wanted == "compiled":
            raise ImportError(f"{ENV}=compiled, but {why} (run `make compiled`)")
        if state == "stale":
            warnings.warn(f"elgrande.rules: {why}; running the pure-Python engine "
                          "(run `make compiled`)", StaleBuild, stacklevel=3)
        return Choice("pure", why)
    package_path.insert(0, str(folder))
    try:  # the shared library loads (right ABI, nothing missing) before any module does
        importlib.import_module(f"{__package__}.{SHARED_LIB}")
    except ImportError as error:
        package_path.remove(str(folder))
        sys.modules.pop(f"{__package__}.{SHARED_LIB}", None)
        if wanted == "compiled":
            raise ImportError(f"{ENV}=compiled, but the compiled build does not load: "
                              f"{error}") from error
        warnings.warn(f"elgrande.rules: the compiled build does not load ({error}); "
                      "running the pure-Python engine", StaleBuild, stacklevel=3)
        return Choice("pure", f"the compiled build does not load: {error}")
    where = f"mypyc build of these sources in {folder.parents[1]}"
    return Choice("compiled", where if wanted == "auto" else f"{ENV}=compiled, {where}", folder)


def attach(package_path: MutableSequence[str], choice: Choice, package: str) -> None:
    """Put the compiled folder of one of the bots' packages first in its ``__path__``
    (``package_path``) when ``choice`` (``elgrande.rules.ENGINE_CHOICE``) is the compiled
    engine: its modules in ``BOT_SEARCH`` then load compiled, the others from the source.
    Called by the package's ``__init__`` before it imports any of its modules."""
    if choice.engine != "compiled" or choice.directory is None:
        return
    folder = package_dir(choice.directory.parents[1], package)
    if folder.is_dir() and str(folder) not in package_path:
        package_path.insert(0, str(folder))


def load_package(name: str, choice: Choice) -> ModuleType:
    """Import package ``name`` (absolute) with ``attach()`` done before its ``__init__``
    runs: for a package whose own ``__init__`` must not change, a frozen bot's copy."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        raise ImportError(f"no package {name!r}")
    module = importlib.util.module_from_spec(spec)
    attach(module.__path__, choice, name)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, module)
    return module
