from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)
from tests.scale.servers import redis_server  # noqa: F401  (fixture)
