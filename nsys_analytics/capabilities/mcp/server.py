"""The tools on the `mcp` SDK's server, over stdio. Imported only by `nsys-analytics mcp`: the SDK (pydantic,
anyio, starlette) is no start-up cost of the other commands."""

from __future__ import annotations

from collections.abc import Callable

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from . import arguments, tools
from .profiles import Served

INSTRUCTIONS = ("Nsight Systems profiles as read-only reports. Call `profiles` for the profile names, `info` for what "
                "a profile holds, then kernels, nvtx, nvtx_kernels, breakdown, diagnose, modules, ranks, diff, "
                "report; `schema` and `sql` for anything else. Each answer is the command's JSON with a `command` "
                "that reproduces it in a terminal; long tables are cut to max_rows with a note.")
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def serve(served: Served, run: Callable, run_sql: Callable, version: str) -> None:
    """Answer tool calls on stdin/stdout until the client closes them."""
    instructions = f"{INSTRUCTIONS} The profiles: {', '.join(served.names)}."
    checks = OneLineArguments()
    server = MCPServer("nsys-analytics", instructions=instructions, version=version, log_level="WARNING",
                       middleware=[checks])
    for tool in tools.build(served, run, run_sql):
        server.add_tool(tool, annotations=READ_ONLY)
    checks.schemas = {t.name: t.input_schema for t in anyio.run(server.list_tools)}
    server.run("stdio")


class OneLineArguments:
    """Middleware: a tool call with an argument the tool lacks is refused, and the SDK's refusal of an argument
    becomes one line (arguments.py)."""

    schemas: dict[str, dict] = {}

    async def __call__(self, ctx, call_next):
        params = ctx.params if ctx.method == "tools/call" and isinstance(ctx.params, dict) else {}
        name, given = params.get("name"), params.get("arguments") or {}
        schema = self.schemas.get(name)
        if schema is None or not isinstance(given, dict):
            return await call_next(ctx)
        line = arguments.unknown(name, schema, given)
        if line is not None:
            return _error(line)
        result = await call_next(ctx)  # the result as it goes on the wire (a dict)
        text = _error_text(result)
        prefix = f"Error executing tool {name}: "
        if text.startswith(prefix):
            return _error(arguments.refused(schema, given, text[len(prefix):]))
        return result


def _error_text(result) -> str:
    """The text of an error result, as an object or as its wire dict ('' for anything else)."""
    if isinstance(result, CallToolResult):
        result = result.model_dump(by_alias=True)
    if not isinstance(result, dict) or not result.get("isError") or not result.get("content"):
        return ""
    return str(result["content"][0].get("text", ""))


def _error(line: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=line)], is_error=True)
