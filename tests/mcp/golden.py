"""Golden tests of `mcpidx serve`: each tests/mcp/golden/NAME.json holds one
request (method, params, and the protocol version to send it with: an
initialized session of that version, or a stateless 2026-07-28 request);
NAME.out.json holds the expected answer, with what changes from run to run
(the temp directory, times, sizes, task ids) replaced by placeholders.
Requests run against an index of testdata/mcp built at start.

    MCPIDX=./mcpidx python3 tests/mcp/golden.py [filter]
    MI_REGEN=1 ... rewrites the .out.json files (review the diff)

Prints one `PASS golden/NAME` or `FAIL golden/NAME: why` line per case.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
MCPIDX = os.environ.get("MCPIDX", os.path.join(TOP, "mcpidx"))
REGEN = os.environ.get("MI_REGEN") == "1"
MODERN = "2026-07-28"
VOLATILE = {"built", "index_bytes", "seconds", "createdAt", "lastUpdatedAt",
            "git_head", "tool", "version", "format_version"}


def normalize(v, tmp):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k in VOLATILE and isinstance(x, (str, int, float)):
                out[k] = "<%s>" % k
            elif k == "taskId":
                out[k] = "<taskId>"
            else:
                out[k] = normalize(x, tmp)
        return out
    if isinstance(v, list):
        return [normalize(x, tmp) for x in v]
    if isinstance(v, str):
        v = v.replace(tmp, "$TMP")
        v = re.sub(r"\(format \d+, mcpidx [^)]*\)", "(format <n>, mcpidx <version>)", v)
        v = re.sub(r"built \d{4}-\d\d-\d\dT[\d:]+Z", "built <time>", v)
        return re.sub(r"\d+\.\d+s\b", "<secs>", v)
    return v


class Server:
    def __init__(self, index):
        self.p = subprocess.Popen([MCPIDX, "serve", index, "--log-level", "off"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.sessions = set()
        self.n = 0

    def rpc(self, method, params):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the server closed stdout")
            m = json.loads(line)
            if m.get("id") == self.n and "method" not in m:
                return m

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=20)


def main():
    flt = sys.argv[1] if len(sys.argv) > 1 else ""
    tmp = tempfile.mkdtemp(prefix="mcpidx-golden-")
    fails = 0
    try:
        repo = os.path.join(tmp, "repo")
        shutil.copytree(os.path.join(TOP, "testdata", "mcp"), repo)
        r = subprocess.run([MCPIDX, "build", "-q", repo], capture_output=True, text=True)
        if r.returncode:
            print("FAIL golden/setup: mcpidx build: " + r.stderr)
            return 1
        servers = {}
        gdir = os.path.join(HERE, "golden")
        for name in sorted(os.listdir(gdir)):
            if not name.endswith(".json") or name.endswith(".out.json"):
                continue
            case = name[:-5]
            if flt and flt not in case:
                continue
            spec = json.load(open(os.path.join(gdir, name)))
            version = spec.get("version", "2025-11-25")
            if spec["method"] == "initialize":
                # An initialize case negotiates its own session: a fresh server,
                # so the shared one of its version keeps its version.
                version = "initialize:" + case
                servers[version] = Server(repo)
            elif version not in servers:
                servers[version] = Server(repo)
                if version != MODERN:
                    servers[version].rpc("initialize", {
                        "protocolVersion": version, "capabilities": {},
                        "clientInfo": {"name": "golden", "version": "1"}})
            params = spec.get("params")
            if version == MODERN:
                params = dict(params or {})
                meta = dict(params.get("_meta", {}))
                meta.update({"io.modelcontextprotocol/protocolVersion": MODERN,
                             "io.modelcontextprotocol/clientCapabilities":
                                 spec.get("capabilities", {})})
                params["_meta"] = meta
            got = servers[version].rpc(spec["method"], params)
            got.pop("id", None)
            got = normalize(got, tmp)
            out = os.path.join(gdir, case + ".out.json")
            text = json.dumps(got, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
            if REGEN:
                with open(out, "w") as f:
                    f.write(text)
                print("PASS golden/%s (regenerated)" % case)
                continue
            want = open(out).read() if os.path.exists(out) else ""
            if want == text:
                print("PASS golden/%s" % case)
            else:
                fails += 1
                diff = [l for l in __import__("difflib").unified_diff(
                    want.splitlines(), text.splitlines(), "expected", "got", lineterm="", n=1)]
                print("FAIL golden/%s: answer differs from %s.out.json (MI_REGEN=1 "
                      "rewrites it): %s" % (case, case, " | ".join(diff[2:12])[:600]))
        for s in servers.values():
            s.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
