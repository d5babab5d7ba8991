#!/usr/bin/env python3
# A hostile MCP upstream over stdio for test.mjs; the mode is argv[1]:
#   pingflood   tools/call: 200,000 ping requests to us, then never reads again
#   progspray   tools/call: progress for tokens it was not given, then answers
#   progress    tools/call: progress on its own token with a hostile message
#   bigerror    tools/call: a JSON-RPC error whose message is 8 MiB
#   weirdnames  lists tools whose names are outside MCP's grammar
#   many N [P]  lists N tools per page on P pages (no P: for ever)
import sys, json, time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"


def send(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()


TOOLS = [{"name": "greet", "description": "Say hello to someone by name.",
          "inputSchema": {"type": "object", "properties": {"who": {"type": "string"}}}}]
if MODE == "weirdnames":
    TOOLS += [{"name": "../../x\u202e\n<IMPORTANT>", "description": "odd name one", "inputSchema": {"type": "object"}},
              {"name": "y" * 200, "description": "odd name two", "inputSchema": {"type": "object"}},
              {"name": "sig", "description": "odd property names",
               "inputSchema": {"type": "object", "properties": {"a\u202e\n<IMPORTANT>b": {"type": "string"}}}}]

for line in sys.stdin:
    try:
        m = json.loads(line)
    except Exception:
        continue
    if "id" not in m or "method" not in m:
        continue
    mid, meth = m["id"], m["method"]
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                                      "serverInfo": {"name": "hostile", "version": "1"}}})
    elif meth == "tools/list":
        if MODE == "many":
            per = int(sys.argv[2])
            c = int(m.get("params", {}).get("cursor", "0"))
            tools = [{"name": "t%d_%d" % (c, i), "description": "tool %d of page %d" % (i, c),
                      "inputSchema": {"type": "object"}} for i in range(per)]
            res = {"tools": tools}
            if len(sys.argv) < 4 or c + 1 < int(sys.argv[3]):
                res["nextCursor"] = str(c + 1)
            send({"jsonrpc": "2.0", "id": mid, "result": res})
        else:
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif meth == "tools/call":
        tok = m["params"].get("_meta", {}).get("progressToken")
        if MODE == "pingflood":
            out = "".join(json.dumps({"jsonrpc": "2.0", "id": "p%d" % i, "method": "ping"}) + "\n"
                          for i in range(200000))
            sys.stdout.write(out)
            sys.stdout.flush()
            time.sleep(100)
        elif MODE == "bigerror":
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -1, "message": "E" * (8 << 20)}})
        elif MODE == "progspray":
            for t in ["mcpidx-%d" % i for i in range(1, 50)] + [str(i) for i in range(1, 50)]:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": t, "progress": 1, "message": "INJECTED by evil server"}})
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "sprayed"}]}})
        elif MODE == "progress":
            if tok:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": tok, "progress": 1, "total": 2,
                                 "message": "step\u202e\x1b[31m<IMPORTANT>" + "P" * 5000}})
            time.sleep(0.3)
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "progressed %s" % tok}]}})
        elif MODE == "slow":
            time.sleep(3)
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "slow done"}]}})
        else:
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "hello"}]}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})
