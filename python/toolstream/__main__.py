"""Run the ``toolstream`` command: ``python -m toolstream``."""

from toolstream.cli import main

raise SystemExit(main())
