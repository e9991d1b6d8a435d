from tests.scale.servers import redis_server  # noqa: F401  (fixture)
