"""The compiled engine (mypyc, docs/compiled-engine.md) plays exactly as the pure one.

The pure engine is the reference. Both play the same seeded games, each in a process of
its own (``ELGRANDE_ENGINE=pure`` and ``=compiled``; each reports the engine it ran and
where its modules came from), and every step is compared: the legal actions, the action,
the events, the whole state, views and a redacted state, round trips, error details.

The compiled build must be fresh: `make test` builds it first (`make compiled`). Where no
C compiler or Python headers are found these tests are skipped; where they are, a missing
or stale build fails here rather than comparing nothing.

Run by hand: ``python -m tests.rules.test_compiled [--detail LABEL STEP]`` prints what
one engine (as ``ELGRANDE_ENGINE`` chooses) records.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from elgrande.rules import compiled

ROOT = Path(__file__).resolve().parents[2]

# Every Yucata option [L] turned from its default (rules.md), for the paths they open.
FLIPPED = {
    "retrieved_card_counts_for_start": False, "move_each_caballero_once": False,
    "province_pick_requires_caballero": False, "province2_requires_two_if_possible": True,
    "hands_public": False, "court_card_recall_from_board": True,
    "castillo_pick_when_empty": True, "empty_region_optional_amount": True,
    "choose_scoring_includes_castillo": False, "value_scoring_includes_castillo": True,
    "retrieve_current_round_card": False, "secret_scoring_allows_king_region": False,
}


def _games() -> list[tuple[str, dict[str, Any], int, float | None]]:
    """(label, GameConfig.to_dict() form, seed, veto pass probability) of every game."""
    games: list[tuple[str, dict[str, Any], int, float | None]] = []
    for players in (2, 3, 4, 5):
        for seed in (1, 2, 3):
            games.append((f"yucata-{players}p-{seed}", {"players": players}, seed, None))
            games.append((f"box-{players}p-{seed}",
                          {"players": players, "options": {"rule_set": "box"}}, seed, 0.8))
    for windows in ("announcement", "every_step"):
        for players in (3, 5):
            games.append((f"box-{windows}-{players}p", {"players": players, "options": {
                "rule_set": "box", "veto_windows": windows}}, 7, 0.6))
    for players in (2, 4):
        games.append((f"options-{players}p", {"players": players, "options": FLIPPED}, 3, None))
        games.append((f"box-options-{players}p", {"players": players, "options": {
            "rule_set": "box", **FLIPPED}}, 4, 0.5))
    games.append(("yucata-6-rounds", {"players": 4, "rounds": 6, "start_player": 2}, 5, None))
    games.append(("box-6-rounds", {"players": 3, "rounds": 6, "start_player": 1,
                                   "options": {"rule_set": "box"}}, 6, 0.3))
    return games


GAMES = _games()


def _records(label: str, config_data: dict[str, Any], seed: int,
             pass_probability: float | None) -> Iterator[dict[str, Any]]:
    """Play one game; yield what each step shows, as plain JSON-ready data."""
    from elgrande.rules import (
        GameConfig,
        IllegalAction,
        State,
        all_actions,
        apply,
        chance_outcomes,
        check_invariants,
        is_chance,
        is_terminal,
        legal_actions,
        new_game,
        redact,
        replay,
        sample_chance,
        to_act,
        view,
        why_illegal,
        winners,
    )
    from elgrande.rules.events import Event

    config = GameConfig.from_dict(config_data)
    rng = random.Random(seed)
    probe = random.Random(seed + 1000)  # picks the illegal actions asked about
    everything = all_actions()
    s = new_game(config)
    log = []
    step = 0
    while not is_terminal(s):
        legal = legal_actions(s)
        record: dict[str, Any] = {"step": step, "to_act": to_act(s),
                                  "legal": [str(a) for a in legal]}
        if is_chance(s):
            record["outcomes"] = [(str(a), p) for a, p in chance_outcomes(s)]
            action = sample_chance(s, rng)
        elif s.phase_name == "veto" and pass_probability is not None:
            action = legal[1] if rng.random() < pass_probability else legal[0]
        else:
            action = legal[rng.randrange(len(legal))]
            actor = (action >> 16) - 1
            record["mine"] = [str(a) for a in legal_actions(s, actor)]
            record["view"] = view(s, actor)
            record["redacted"] = redact(s, actor).to_dict()
        if step % 5 == 0:
            record["spectator"] = view(s, None)
            wrong = everything[probe.randrange(len(everything))]
            if wrong not in legal:
                error = why_illegal(s, wrong)
                record["illegal"] = [error.code, str(error), repr(error.params)]
            try:
                apply(s.copy(), "p9 bid 99")
            except IllegalAction as error:
                record["not_an_action"] = [error.code, str(error)]
        if step % 11 == 0:
            assert State.from_dict(s.to_dict()) == s
            assert s.copy() == s and repr(s.copy()) == repr(s)
            assert State.thawed(s.frozen()) == s
            record["repr"] = repr(s)
            record["frozen"] = repr(s.frozen()[3:])
        events: list[Event] = []
        # The action as the Action object, its text or its plain code, in turn.
        given: Any = (action, str(action), int(action))[step % 3]
        apply(s, given, events)
        check_invariants(s)
        log.append(action)
        record["action"] = str(action)
        record["events"] = [e.to_dict() for e in events]
        record["state"] = s.to_dict()
        yield record
        step += 1
    final = replay(config, [str(a) for a in log])
    assert final == s
    yield {"end": True, "winners": winners(s), "scores": s.scores, "state": final.to_dict(),
           "repr": repr(final)}


def _digest(record: dict[str, Any]) -> str:
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def trace() -> dict[str, Any]:
    """What this process's engine records: its name, its modules' files, and a digest of
    every step of every game."""
    import elgrande.rules as rules
    from elgrande.rules import engine, state

    games = {}
    for label, config_data, seed, pass_probability in GAMES:
        games[label] = [_digest(r) for r in _records(label, config_data, seed, pass_probability)]
    return {"engine": rules.ENGINE, "files": [engine.__file__, state.__file__], "games": games}


def detail(label: str, step: int) -> dict[str, Any]:
    """The full record of one step of one game (for a failure's diff)."""
    game = next(g for g in GAMES if g[0] == label)
    for i, record in enumerate(_records(*game)):
        if i == step:
            return record
    raise IndexError(step)


def _run(engine: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.rules.test_compiled", *args], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, **(env or {}), "ELGRANDE_ENGINE": engine})


def _result(process: subprocess.Popen[str]) -> Any:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    return json.loads(out)


def _can_build() -> str:
    """Why this machine cannot build the compiled engine, or "" when it can."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h)"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed"
    return ""


@pytest.fixture(scope="module")
def fresh_build() -> Path:
    why = _can_build()
    if why:
        pytest.skip(f"the compiled engine cannot be built here: {why}")
    state, folder = compiled.build_state()
    assert state == "fresh", (
        f"the compiled engine's build is {state} ({folder}); `make compiled` builds it "
        "(`make test` does so first)")
    return folder


def test_both_engines_play_the_same_games(fresh_build: Path) -> None:
    pure, native = _run("pure"), _run("compiled")  # side by side: one per core
    reference, result = _result(pure), _result(native)
    # Each side really ran the engine it was asked for.
    assert reference["engine"] == "pure"
    assert all(f.startswith(str(compiled.SOURCE_DIR)) and f.endswith(".py")
               for f in reference["files"])
    assert result["engine"] == "compiled"
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert all(f.startswith(str(fresh_build)) and f.endswith(suffix) for f in result["files"])
    assert list(result["games"]) == [g[0] for g in GAMES]
    steps = 0
    for label, expected in reference["games"].items():
        got = result["games"][label]
        steps += len(expected)
        if got == expected:
            continue
        step = next((i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b),
                    min(len(expected), len(got)))
        pure_detail = _result(_run("pure", "--detail", label, str(step)))
        native_detail = _result(_run("compiled", "--detail", label, str(step)))
        diff = difflib.unified_diff(
            json.dumps(pure_detail, indent=1, sort_keys=True).splitlines(),
            json.dumps(native_detail, indent=1, sort_keys=True).splitlines(),
            "pure", "compiled", lineterm="", n=2)
        pytest.fail(f"{label}: the engines differ at step {step}:\n" + "\n".join(list(diff)[:80]))
    assert steps > 7000


def test_a_stale_build_is_never_used(fresh_build: Path, tmp_path: Path) -> None:
    """A copy of the build whose manifest names other sources: auto runs the pure engine
    and warns, compiled refuses."""
    copy = tmp_path / "build"
    shutil.copytree(fresh_build.parents[1], copy)
    manifest = compiled.package_dir(copy) / compiled.MANIFEST
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "digest": "0" * 64}))
    code = ("import elgrande.rules as r, elgrande.rules.engine as e, elgrande.ai.ismcts as i; "
            "import elgrande.ai.frozen.hard_2026_12.ismcts as f; "
            "print(r.ENGINE, *(m.__file__.endswith('.py') for m in (e, i, f)))")
    env = {**os.environ, compiled.BUILD_ENV: str(copy)}
    auto = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**env, "ELGRANDE_ENGINE": "auto"}, cwd=ROOT)
    assert auto.returncode == 0, auto.stderr
    assert auto.stdout.split() == ["pure", "True", "True", "True"]
    assert "StaleBuild" in auto.stderr and "make compiled" in auto.stderr
    strict = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**env, "ELGRANDE_ENGINE": "compiled"}, cwd=ROOT)
    assert strict.returncode != 0 and "stale" in strict.stderr
    manifest.write_text(json.dumps(data))  # the same build, fresh again: it is used
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**env, "ELGRANDE_ENGINE": "auto"}, cwd=ROOT)
    assert fresh.stdout.split() == ["compiled", "False", "False", "False"], fresh.stderr


def test_the_digest_covers_every_compiled_source(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "elgrande"  # the engine's package and the bots' compiled modules
    source = tree / "rules"
    shutil.copytree(compiled.SOURCE_DIR, source, ignore=shutil.ignore_patterns("__pycache__"))
    for name in compiled.BOT_SEARCH:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(compiled.SOURCE_DIR.parent / name, tree / name)
    monkeypatch.setattr(compiled, "SOURCE_DIR", source)
    names = [compiled.source_name(p) for p in compiled.compiled_sources()]
    assert {"rules/engine.py", "rules/state.py", "ai/ismcts.py",
            "ai/frozen/hard_2026_12/ismcts.py"} <= set(names)
    assert not {f"rules/{name}" for name in compiled.NOT_COMPILED} & set(names)
    before = compiled.source_digest()
    root = tmp_path / "build"
    compiled.package_dir(root).mkdir(parents=True)
    assert compiled.build_state(root)[0] == "missing"
    (compiled.package_dir(root) / compiled.MANIFEST).write_text(json.dumps({"digest": before}))
    assert compiled.build_state(root)[0] == "fresh"
    for name in names:  # one byte more in any of them makes the build stale
        path = tree / name
        text = path.read_text()
        path.write_text(text + "\n")
        assert compiled.source_digest() != before and compiled.build_state(root)[0] == "stale"
        path.write_text(text)
    (source / "new_module.py").write_text("")
    assert compiled.source_digest() != before
    (source / "new_module.py").unlink()
    (source / "events.py").write_text("# never compiled: no effect on the digest\n")
    (tree / "ai" / "levels.py").write_text("# not the bots' search: no effect either\n")
    assert compiled.source_digest() == before


def test_choose(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path: list[str] = ["src"]
    assert compiled.choose(path, "pure") == compiled.Choice("pure", "ELGRANDE_ENGINE=pure")
    assert path == ["src"]
    with pytest.raises(ImportError, match="expected one of auto, pure, compiled"):
        compiled.choose(path, "fast")
    monkeypatch.setenv(compiled.BUILD_ENV, str(tmp_path))  # nothing there
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # missing: quietly pure
        assert compiled.choose(path, "auto").engine == "pure"
    with pytest.raises(ImportError, match="no compiled build"):
        compiled.choose(path, "compiled")
    monkeypatch.setattr(compiled, "build_state", lambda: ("stale", tmp_path))
    with pytest.warns(compiled.StaleBuild, match="stale"):
        assert compiled.choose(path, "auto").engine == "pure"
    assert path == ["src"]


def test_bench_engine_names_the_engine(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    import elgrande.rules as rules
    from elgrande.cli import engine as cli_engine
    from elgrande.cli import main

    monkeypatch.setattr(cli_engine, "bench_copy", lambda: 1.0)
    assert main(["bench", "engine", "--players", "2", "--seconds", "0.05", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rules_engine"] == rules.ENGINE
    assert main(["bench", "engine", "--players", "2", "--seconds", "0.05"]) == 0
    assert f"rules engine: {rules.ENGINE}" in capsys.readouterr().out


if __name__ == "__main__":
    if sys.argv[1:2] == ["--detail"]:
        print(json.dumps(detail(sys.argv[2], int(sys.argv[3]))))
    else:
        print(json.dumps(trace()))
