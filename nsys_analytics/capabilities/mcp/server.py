"""The tools on the `mcp` SDK's server, over stdio. Imported only by `nsys-analytics mcp`: the SDK (pydantic,
anyio, starlette) is no start-up cost of the other commands."""

from __future__ import annotations

from collections.abc import Callable

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from . import tools
from .profiles import Served

INSTRUCTIONS = ("Nsight Systems profiles as read-only reports. Call `profiles` for the profile names, `info` for what "
                "a profile holds, then kernels, nvtx, nvtx_kernels, breakdown, diagnose, ranks, diff, report; `schema` "
                "and `sql` for anything else. Each answer is the command's JSON with a `command` that reproduces it "
                "in a terminal; long tables are cut to max_rows with a note.")
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def serve(served: Served, run: Callable, run_sql: Callable, version: str) -> None:
    """Answer tool calls on stdin/stdout until the client closes them."""
    instructions = f"{INSTRUCTIONS} The profiles: {', '.join(served.names)}."
    server = MCPServer("nsys-analytics", instructions=instructions, version=version, log_level="WARNING")
    for tool in tools.build(served, run, run_sql):
        server.add_tool(tool, annotations=READ_ONLY)
    server.run("stdio")
