"""Where the load generator's connections come from, so that one machine can play as
many clients as a server meets.

- **Source addresses.** Linux answers on the whole of 127.0.0.0/8, so on loopback each
  game's players (and its spectators) connect from an address of its own: the server's
  caps per client address (docs/security.md) then see one household per game, as with
  real players, not one abusive client; and every address has its own range of
  ephemeral ports (one address runs out at about 28,000 connections to one server).
- **Open files.** Each connection is a file descriptor: the soft limit is raised to the
  hard one (and the hard one too where the process may, as root can), before the
  servers and client processes are started, so that they inherit it."""

from __future__ import annotations

import ipaddress
import resource
from urllib.parse import urlsplit

WANTED_OPEN_FILES = 1 << 20  # as many as the kernel allows a process by default (nr_open)
FIRST = int(ipaddress.IPv4Address("127.1.0.1"))
ADDRESSES = 1 << 20  # 127.1.0.1 onwards: as many games as any run plays


def source_address(url: str, index: int) -> str | None:
    """The address the ``index``-th game's clients connect from (None: the system's
    choice, for servers that are not on IPv4 loopback)."""
    host = urlsplit(url).hostname or ""
    try:
        loopback = ipaddress.IPv4Address(host).is_loopback
    except ipaddress.AddressValueError:
        loopback = False
    if not loopback:
        return None
    return str(ipaddress.IPv4Address(FIRST + index % ADDRESSES))


def raise_open_files() -> int:
    """Raises this process's limit on open files as far as allowed; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < WANTED_OPEN_FILES:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (WANTED_OPEN_FILES, WANTED_OPEN_FILES))
            return WANTED_OPEN_FILES
        except (ValueError, OSError):  # not allowed to raise the hard limit: up to it
            pass
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard
    except (ValueError, OSError):
        return soft
