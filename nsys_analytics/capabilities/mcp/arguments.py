"""A tool's arguments as the CLI treats its options: one that the tool does not have is refused (the SDK would drop
it unread), and one the SDK refuses is told in one line, like click's `Invalid value for '--limit': ...`, in place
of the SDK's validation report (several lines, a link)."""

from __future__ import annotations

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match


def unknown(tool: str, schema: dict, arguments: dict) -> str | None:
    """The line for an argument `tool` does not take, or None."""
    known = list(schema.get("properties", {}))
    extra = [name for name in arguments if name not in known]
    if not extra:
        return None
    return f"Error: No such argument: {extra[0]!r} ({tool} takes {', '.join(known)})"


def refused(schema: dict, arguments: dict, report: str) -> str:
    """The line for arguments the SDK refused (`report`: its text): the first problem against the tool's schema."""
    error = best_match(Draft202012Validator(schema).iter_errors(arguments))
    if error is None:  # refused by a rule the schema does not show: the report's first line
        return f"Error: {report.splitlines()[0]}"
    if error.validator == "required":
        return f"Error: Missing argument {error.message.split(' is a required')[0]}"
    where = ".".join(map(str, error.absolute_path))
    return f"Error: Invalid value for {where!r}: {error.message}"
