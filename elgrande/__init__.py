"""El Grande online: rules engine, turn framework, web app and computer opponents."""

__version__ = "0.1.0"
