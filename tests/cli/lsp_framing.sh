#!/bin/sh
# lsp_framing.sh - `mcpidx lsp` answers what breaks the base protocol (a
# header without Content-Length, a body that is not JSON or not JSON-RPC, a
# message over the size cap, a header that never ends) with an error it
# can name, keeps serving, and exits 1 when the input ends without `exit`.
. "$(dirname "$0")/lib.sh"
cat > "$T/drive.py" <<'PY'
import json, subprocess, sys

def frame(body):
    b = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(b) + b

def run(chunks):
    p = subprocess.run([sys.argv[1], "lsp"], input=b"".join(chunks),
                       capture_output=True, timeout=60)
    out, msgs = p.stdout, []
    while out:
        head, _, rest = out.partition(b"\r\n\r\n")
        n = int(head.split(b":")[1])
        msgs.append(json.loads(rest[:n]))
        out = rest[n:]
    return p.returncode, msgs, p.stderr.decode(errors="replace")

init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"capabilities": {}, "rootUri": None}})
rc, msgs, err = run([
    b"Content-Length: abc\r\n\r\n",
    frame("{not json"),
    frame("[1, 2]"),
    frame('{"jsonrpc": "1.0", "id": 7, "method": "initialize"}'),
    frame(init),
    frame('{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}'),
    frame('{"jsonrpc": "2.0", "method": "exit"}'),
])
errs = [m["error"] for m in msgs if "error" in m]
assert rc == 0, (rc, err)
assert errs[0]["code"] == -32700 and "Content-Length" in errs[0]["message"], errs
assert errs[1]["code"] == -32700 and "invalid JSON" in errs[1]["message"], errs
assert errs[2]["code"] == -32600, errs
assert errs[3]["code"] == -32600 and [m.get("id") for m in msgs][3] == 7, msgs
res = [m for m in msgs if m.get("id") == 1]
assert res and res[0]["result"]["capabilities"]["foldingRangeProvider"], msgs
assert [m for m in msgs if m.get("id") == 2][0]["result"] is None, msgs

# A message over the cap is skipped, named, and the input ending without
# exit gives status 1.
rc, msgs, err = run([b"Content-Length: 99999999999\r\n\r\n", b"x" * 1000])
assert rc == 1, (rc, err)
assert "over the limit" in msgs[0]["error"]["message"], msgs

# A header block over the cap is dropped; what follows is served.
rc, msgs, err = run([b"X" * 9000 + b"\r\n\r\n", frame(init)])
assert "header of 9000 bytes" in msgs[0]["error"]["message"], msgs
assert msgs[-1].get("id") == 1 and "result" in msgs[-1], msgs

# A header that never ends is named when the input ends.
rc, msgs, err = run([b"Content-Length: 5" + b" " * 9000])
assert rc == 1 and "without the blank line" in msgs[0]["error"]["message"], msgs
print("ok")
PY
python3 "$T/drive.py" "$MCPIDX" || fail "lsp framing"
