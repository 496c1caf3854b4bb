"""A bare MCP server for bench_claude_code's floor: standard library only, run as `python -I -S
bare_mcp_server.py TOOLS.json`. It answers `initialize` and `tools/list` (with the tool list
`onlooker mcp` gives, read from TOOLS.json, so Claude Code's requests carry the same tools) and
nothing else: what any stdio MCP server in Python costs Claude Code's start."""

import json
import sys


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as file:
        tools = json.load(file)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message:
            continue  # a notification
        method = message.get("method")
        if method == "initialize":
            result = {
                "protocolVersion": message.get("params", {}).get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "bare", "version": "0"},
            }
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        elif method == "tools/list":
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": tools}}
        elif method == "ping":
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        else:
            error = {"code": -32601, "message": "Method not found"}
            answer = {"jsonrpc": "2.0", "id": message["id"], "error": error}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
