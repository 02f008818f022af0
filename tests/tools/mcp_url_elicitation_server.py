"""An MCP server (official SDK) whose one tool asks the user, in URL mode, to open a
page (the out-of-band flows MCP uses for credentials or payments). Run
``python mcp_url_elicitation_server.py`` (stdio)."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("linker", version="1.0")


@server.tool(description="Ask the user to connect an account on a web page.")
async def connect(ctx: Context) -> str:
    answer = await ctx.elicit_url("Connect your calendar account",
                                  "https://calendar.example/connect?state=42", "link-42")
    return f"connect: {answer.action}"


if __name__ == "__main__":
    server.run("stdio")
