#!/bin/sh
# An error quotes the argument it refuses; that argument may be 16 MiB, and
# the error holds to max_tokens like any answer (the default 20,000 when
# none or a bad one is given), cut with a V* line that says so.  Before:
# a 1 MiB path, symbol, selector, target, revision or query came back
# whole in the error (a megabyte answer for a budget of 100 tokens).
# (context_pack takes budget_tokens, not max_tokens: its error holds to
# the default; the artifact tools' errors keep 4 KiB of their message.)
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, sys
from mcptest import Stdio, fail, build, text, served

repo, s = served()
big = "x" * (1 << 20)
calls = [("read_file", {"path": "src/" + big + ".c"}),
         ("expand_at", {"path": "src/auth.c", "selector": big}),
         ("context_pack", {"target": big}),
         ("changed_symbols", {"since": big}),
         ("code_research", {"query": big}),
         ("find_references", {"symbol": big})]
for name, args in calls:
    for budget in [None] if name == "context_pack" else [None, 100, 500]:
        a = dict(args) if budget is None else dict(args, max_tokens=budget)
        r = s.call(name, a)
        t = text(r)
        limit = 6 * (budget or 20000) + 200
        if len(t.encode()) > limit:
            fail("%s max_tokens %s: an answer of %d bytes (limit %d)" % (name, budget, len(t.encode()), limit))
        if r.get("isError") and "V* [cut" not in t:
            fail("%s max_tokens %s: a cut error should say so: %s" % (name, budget, t[-200:]))
s.close()
# the artifact tools answer an error in both forms, each quoting the path
s = Stdio([repo, "--artifacts"])
s.init()
for name, args in [("get_artifact", {"path": big}), ("delete_artifact", {"path": "src/auth.c", "task": big}),
                   ("store_llm_result", {"path": "src/" + big + ".c", "task": "summarize", "result": "x"}),
                   ("generate_prompt", {"path": "src/auth.c", "task": "summarize", "symbol": big})]:
    r = s.call(name, args)
    size = len(json.dumps(r).encode())
    if size > 6 * 20000 + 200:
        fail("%s: an error answer of %d bytes" % (name, size))
s.close()
print("ok")
PY
