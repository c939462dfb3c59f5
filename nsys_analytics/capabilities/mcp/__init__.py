"""`nsys-analytics mcp`: the reports as read-only tools for assistants, over the Model Context Protocol (stdio).

- profiles.py: the profiles named at start-up, by name; nothing else is reachable;
- tools.py: one typed tool per report command, each the command's own report as its JSON, cut to a row limit;
- server.py: the tools on the `mcp` SDK's server (imported only by `nsys-analytics mcp`);
- arguments.py: a wrong argument refused in one line, an unknown one refused, not dropped;
- mcp_cmd.py: the command, and how a tool runs a command (the CLI's own code, its one-line errors).
"""
