"""`python -m desktop` runs the same command line as `tiebreak`."""

import sys

try:
    from desktop.cli.main import main
except KeyboardInterrupt:  # Ctrl+C while Python loads the command: one line, no traceback
    sys.stderr.write("tiebreak: error: interrupted\n")
    raise SystemExit(1) from None

raise SystemExit(main())
