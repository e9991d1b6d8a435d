"""Every package's tables, gathered on the one ``Base`` the migrations compare with."""

import elgrande.matches.tables  # noqa: F401  (matches, match_commits, match_moves, match_drafts)
import elgrande.scale.tables  # noqa: F401  (bot_leases)
import elgrande.server.tables  # noqa: F401  (web_users, web_games, web_seats)
from elgrande.db.base import Base

metadata = Base.metadata
