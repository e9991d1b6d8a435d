#!/usr/bin/env bash
# Installs the Debian packages that the tests need, when they are missing.
# Runs as root on CI and developer machines; does nothing when all are present.
set -euo pipefail
needed=()
# scripts/system-packages.txt lists "command-or-path debian-package" pairs.
if [ -f scripts/system-packages.txt ]; then
  while read -r cmd pkg; do
    [ -z "${cmd:-}" ] && continue
    case "$cmd" in \#*) continue;; esac
    # The check may be a command name, a path or a path pattern (e.g. /usr/lib/postgresql/*/bin/initdb).
    if compgen -G "$cmd" >/dev/null || command -v "$cmd" >/dev/null 2>&1; then :; else needed+=("$pkg"); fi
  done < scripts/system-packages.txt
fi
if [ ${#needed[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "Missing system packages: ${needed[*]}; install them as root (apt-get install ${needed[*]})." >&2
  exit 1
fi
echo "Installing system packages: ${needed[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${needed[@]}" >/dev/null
