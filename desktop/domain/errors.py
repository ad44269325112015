"""One exception family whose message is the one line a user sees."""


class TiebreakError(Exception):
    """An error to report to the user as one line, without a traceback."""


class RubricError(TiebreakError):
    """A rubric file is malformed, or cannot render for a pair."""


class ImportDataError(TiebreakError):
    """A data file cannot be imported; the message names file, line and field."""


class ProjectError(TiebreakError):
    """A project file cannot be opened or written."""
