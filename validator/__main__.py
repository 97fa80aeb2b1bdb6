"""``python -m validator`` runs the ``recipe-check`` command line."""

import sys

try:
    from validator.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command line itself is imported
    print("recipe-check: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
