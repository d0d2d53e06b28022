"""Run the ``toolwire`` command: ``python -m toolwire``."""

from toolwire.cli import main

raise SystemExit(main())
