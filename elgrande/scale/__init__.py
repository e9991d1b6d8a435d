"""Several server processes on one database and one Redis: the Redis pub/sub broker
(``pubsub``) and bot-move leases in the database (``leases``, table ``bot_leases``).
Below the web app in the layers: it imports the turn framework and the database base
only; ``elgrande.server.app.create_app`` builds these parts when settings ask for them.
See docs/deploy.md."""
