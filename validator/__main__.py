"""``python -m validator`` runs the ``recipe-check`` command line."""

from validator.cli import main

raise SystemExit(main())
