"""Tool activity: the sidebar, tool and approval cards, and the Tools / MCP settings dialogs."""
