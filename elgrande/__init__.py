"""El Grande online: rules engine, turn framework, web app and computer opponents."""

# The one place of the version: pyproject.toml reads it, `elgrande --version` prints it.
__version__ = "0.1.0"
