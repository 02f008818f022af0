"""An MCP server spoken by hand over stdio (newline-delimited JSON-RPC), to send what
the SDK's servers never would.

``python mcp_raw_server.py bad-init``: answers ``initialize`` with a result that is
not an MCP one. ``python mcp_raw_server.py big BYTES [result-first]``: a server with
one tool, ``big``, whose answer is a text of BYTES characters ("result-first" writes
the response's ``id`` last, as some SDKs do).
"""

from __future__ import annotations

import json
import sys


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    result_first = "result-first" in sys.argv
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:
            continue  # a notification
        ident, method = request["id"], request.get("method")
        if method == "initialize":
            if mode == "bad-init":
                send({"jsonrpc": "2.0", "id": ident,
                      "result": {"protocolVersion": 2025, "capabilities": "all of them"}})
                continue
            result: object = {"protocolVersion": request["params"]["protocolVersion"],
                              "capabilities": {"tools": {}},
                              "serverInfo": {"name": "raw", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "big", "description": "A very long answer.",
                                 "inputSchema": {"type": "object", "properties": {}}}]}
        elif method == "tools/call":
            text = ("0123456789abcdef" * (size // 16 + 1))[:size]
            result = {"content": [{"type": "text", "text": text}], "isError": False}
            if result_first:  # the id after a result far longer than what is read
                body = json.dumps({"result": result, "jsonrpc": "2.0", "id": ident})
                sys.stdout.write(body + "\n")
                sys.stdout.flush()
                continue
        else:
            send({"jsonrpc": "2.0", "id": ident,
                  "error": {"code": -32601, "message": f"no method {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
