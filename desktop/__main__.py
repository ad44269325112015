"""`python -m desktop` runs the same command line as `tiebreak`."""

from desktop.cli.main import main

raise SystemExit(main())
