"""The ``toolwire`` command: ``main(argv) -> int``, and the parser of every command for tools and tests.

Each command is registered once, in the command table (``_commands.COMMANDS``): its name, one line of help, the
module that builds its parser and runs it, the extra it needs and the ``[tool.toolwire]`` keys it reads. The flags
every command shares, and the vocabulary they follow, live in ``_common``.
"""

from toolwire.cli._main import build_parser, main

__all__ = ["build_parser", "main"]
