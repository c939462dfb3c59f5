"""One error hierarchy. The CLI prints `Error: <message>` and exits with the class's exit code."""

from __future__ import annotations

# Every exit code of the CLI, here and nowhere else (documented in the README and in `nsys-analytics --help`).
EXIT_OK = 0
EXIT_DATA_ERROR = 1  # a bad or incomplete profile, or missing data
EXIT_USAGE_ERROR = 2  # options that cannot work together, a name that does not exist
EXIT_INTERNAL_ERROR = 3  # a bug: one line, and --debug shows the traceback
EXIT_FINDINGS = 4  # `diagnose --fail-on` met a finding that severe, or `runs gate` a regression
EXIT_INTERRUPTED = 130  # Ctrl-C


class NsysAnalyticsError(Exception):
    """Base class: a problem the user can fix; the message says how."""

    exit_code = EXIT_DATA_ERROR


class ProfileError(NsysAnalyticsError):
    """The input file cannot be read as a profile (missing, wrong kind, truncated, ...)."""


class MissingDataError(NsysAnalyticsError):
    """The profile lacks the data a report needs (e.g. no kernels, no NVTX)."""


class QueryError(NsysAnalyticsError):
    """A user-supplied SQL query or parameter is invalid."""

    exit_code = EXIT_USAGE_ERROR


class UsageError(NsysAnalyticsError):
    """Options that contradict each other or name something that does not exist."""

    exit_code = EXIT_USAGE_ERROR


class OutOfMemoryError(NsysAnalyticsError):
    """The command needed more memory than it may use (DuckDB's limit, NSYS_ANALYTICS_MEMORY, or `ulimit -v`)."""


class SectionsFailed(NsysAnalyticsError):
    """A report was written, but some of its sections could not be made (they show as failed)."""
