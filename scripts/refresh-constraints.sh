#!/usr/bin/env bash
# Rewrites constraints.txt: resolves the development install (`.[dev]`) from
# pyproject.toml, keeping the current pins where they still fit. Extra arguments go to
# `uv pip compile` (e.g. --upgrade, or --upgrade-package NAME). Run via `make constraints`.
set -euo pipefail
cd "$(dirname "$0")/.."
UV=${UV:-.venv/bin/uv}
"$UV" pip compile --quiet --no-header --no-annotate --extra dev "$@" \
    -o constraints.txt pyproject.toml
{
    cat <<'HEADER'
# Pinned versions of everything the development install (`.[dev]`) resolves to.
# `make run` (the server's packages only) and `make test` (all of them) both install
# with `-c constraints.txt`, so every machine runs the same versions.
#
# To refresh after changing the dependencies in pyproject.toml: `make constraints`
# (keeps the other pins); to take the newest releases: `make constraints ARGS=--upgrade`.
# Both run scripts/refresh-constraints.sh (`uv pip compile --extra dev pyproject.toml`).
HEADER
    cat constraints.txt
} > constraints.txt.new
mv constraints.txt.new constraints.txt
