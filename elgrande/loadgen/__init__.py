"""The load generator behind ``elgrande bench server``: starts server processes
(``launch``), plays games through them with scripted players over real HTTP and
WebSocket (``client``) and reports throughput and latency (``bench``). It sits at the
top of the layers: the server never imports it."""
