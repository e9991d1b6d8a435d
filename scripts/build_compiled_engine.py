"""Build the compiled rules engine: mypyc compiles elgrande/rules and the bots' search
(elgrande.rules.compiled.BOT_SEARCH) in one group (docs/compiled-engine.md).

Run by `make compiled` (and so by `make test`). Writes the compiled modules to
build/compiled-engine/<interpreter>/elgrande/rules/ (and .../elgrande/ai/), never next to
the source, with a manifest recording the digest of the sources they were made from;
elgrande.rules loads them instead of the source when that digest is the sources' digest
(ELGRANDE_ENGINE=auto).

A no-op when the build is fresh (same sources, same mypyc, same options). Otherwise it
builds into a scratch folder, checks that a fresh process loads the result as the
compiled engine, and only then puts it in place, so a failed build leaves no build that
could pass for fresh; a failure exits non-zero with the compiler's message.

    .venv/bin/python scripts/build_compiled_engine.py [--force] [--quiet]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Load the engine's sources as the pure engine: this script only needs their paths and
# digest, and must not hold the build it replaces open.
os.environ["ELGRANDE_ENGINE"] = "pure"
sys.path.insert(0, str(ROOT))

from elgrande.rules import compiled  # noqa: E402

# What the build is made with; a change rebuilds. opt_level 3 (gcc -O3) is mypyc's
# default. One group: a single shared library (elgrande/rules/native__mypyc*.so, inside the
# package, so nothing goes on sys.path) holds every module, and calls between them stay
# native.
GROUP = "elgrande.rules." + compiled.SHARED_LIB.removesuffix("__mypyc")
OPTIONS = {"opt_level": "3", "debug_level": "0", "group": GROUP}
BUILD_FORMAT = 1


def _mypy_version() -> str:
    from mypy.version import __version__
    return __version__


def _wanted() -> dict:
    return {"format": BUILD_FORMAT, "mypy": _mypy_version(), "python": sys.version.split()[0],
            "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"), "options": OPTIONS}


def is_fresh() -> bool:
    manifest = compiled.read_manifest()
    if manifest is None or manifest.get("digest") != compiled.source_digest():
        return False
    return all(manifest.get(k) == v for k, v in _wanted().items())


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the C compiler)."""
    try:
        import resource
    except ImportError:  # not on Unix
        return time.process_time()
    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _compile(scratch: Path) -> None:
    """mypyc + the C compiler: the extension modules into ``scratch`` (its ``c/`` holds
    the generated C and the objects)."""
    from mypyc.build import mypycify
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    c_dir = scratch / "c"
    sources = [str(p.relative_to(ROOT)) for p in compiled.compiled_sources()]
    extensions = mypycify(sources, opt_level=OPTIONS["opt_level"],
                          debug_level=OPTIONS["debug_level"], target_dir=str(c_dir),
                          group_name=OPTIONS["group"])
    # mypyc writes the shared library's headers under the group's dotted path.
    headers = c_dir / Path(*OPTIONS["group"].split(".")[:-1])
    for extension in extensions:
        extension.include_dirs.append(str(headers))
    command = build_ext(Distribution({"ext_modules": extensions}))
    command.build_lib = str(scratch / "out")
    command.build_temp = str(c_dir)
    command.parallel = os.cpu_count() or 1
    command.ensure_finalized()
    command.run()


def _check(root: Path) -> None:
    """A new process loads the build in ``root`` as the compiled engine and bots' search,
    plays a game and has the bots choose a move."""
    code = (
        "import random, sys\n"
        "import elgrande.rules as r\n"
        "from elgrande.rules.simulate import play_random_game\n"
        "from elgrande.ai import ismcts, make_bot\n"
        "from elgrande.ai.frozen.hard_2026_12 import ismcts as frozen\n"
        "assert r.ENGINE == 'compiled', r.ENGINE_CHOICE\n"
        "for module in (r.engine, ismcts, frozen):\n"
        "    assert module.__file__.startswith(sys.argv[1]), module.__file__\n"
        "state, log = play_random_game(r.GameConfig(players=4, options=r.Options.preset('box')),"
        " random.Random(1))\n"
        "assert r.is_terminal(state) and log\n"
        "s = r.new_game(r.GameConfig(players=3))\n"
        "while r.is_chance(s):\n"
        "    r.apply(s, r.sample_chance(s, random.Random(2)))\n"
        "for name in ('ismcts:20', 'baseline', 'medium'):\n"
        "    make_bot(name, 1).choose(s, r.to_act(s)[0])\n"
    )
    env = dict(os.environ, ELGRANDE_ENGINE="compiled", ELGRANDE_ENGINE_BUILD=str(root))
    subprocess.run([sys.executable, "-c", code, str(root)], cwd=ROOT, env=env, check=True)


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One build at a time in ``folder`` (two `make test` runs side by side)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        try:
            import fcntl
        except ImportError:  # not on Unix: no lock
            yield
            return
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build(force: bool = False, quiet: bool = False) -> int:
    target = compiled.build_dir()
    with _locked(target.parent):
        return _build(target, force, quiet)


def _build(target: Path, force: bool, quiet: bool) -> int:
    say = (lambda *_: None) if quiet else (lambda *a: print(*a, flush=True))
    if not force and is_fresh():
        say(f"compiled engine: up to date ({_shown(target)})")
        return 0
    started, cpu = time.perf_counter(), _cpu_seconds()
    digest = compiled.source_digest()
    scratch = target.with_name(target.name + ".new")
    shutil.rmtree(scratch, ignore_errors=True)
    say(f"compiled engine: compiling {len(compiled.compiled_sources())} modules of "
        "elgrande/rules and the bots' search with mypyc and the C compiler (a minute or "
        "two) ...")
    try:
        _compile(scratch)
    except Exception:
        traceback.print_exc()
        print("compiled engine: the build failed (it needs a C compiler, Python's headers and "
              "mypyc: docs/compiled-engine.md)", file=sys.stderr)
        return 1
    if compiled.source_digest() != digest:
        print("compiled engine: the sources changed during the build; run it again",
              file=sys.stderr)
        return 1
    manifest = {**_wanted(), "digest": digest,
                "modules": [compiled.source_name(p) for p in compiled.compiled_sources()],
                "seconds": round(time.perf_counter() - started, 1),
                "cpu_seconds": round(_cpu_seconds() - cpu, 1),
                "built": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    out = scratch / "out"
    (compiled.package_dir(out) / compiled.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    _check(out)
    # In place: the old build moves aside first (running processes keep their loaded
    # copies), then the new one takes its name.
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    out.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(scratch, ignore_errors=True)
    say(f"compiled engine: built in {manifest['seconds']} s ({manifest['cpu_seconds']} s of "
        f"CPU) in {_shown(target)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="rebuild even when fresh")
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")
    args = parser.parse_args()
    return build(force=args.force, quiet=args.quiet)


if __name__ == "__main__":
    sys.exit(main())
