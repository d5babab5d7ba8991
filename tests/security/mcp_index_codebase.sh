#!/bin/sh
# index_codebase is confined to the served repository: a relative path
# starts there (never at the server's working directory), other trees are
# refused unless named with --allow-root (and are built, never served), and
# a packed index is refused as read-only.  Nothing is written outside.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cp -r "$here/../../testdata/mcp" "$T/repo"
mkdir -p "$T/other/src" "$T/cwd" "$T/allowed/deep/tree" "$T/etc"
printf 'int other_only_fn(void) { return 1; }\n' > "$T/other/src/o.c"
printf 'int deep_only_fn(void) { return 2; }\n' > "$T/allowed/deep/tree/d.c"
cd "$T/cwd" && PYTHONPATH="$here" python3 - "$T" <<'PY'
import os, subprocess, sys
from mcptest import Stdio, MCPIDX, fail, text, build

T = sys.argv[1]
repo, other, cwd = T + "/repo", T + "/other", T + "/cwd"

def refused(r, what, want):
    if not r.get("isError") or want not in text(r):
        fail("%s: want a refusal saying %r, got %s" % (what, want, text(r)[:300]))

s = Stdio([repo], cwd=cwd)
s.init()
# (A tree of the test's own stands in for /etc: a regression must not write
# into the machine's.)
for path in [T + "/etc", other, "../other", "..", "src/../../other", T,
             repo + "/../etc"]:
    refused(s.call("index_codebase", {"path": path}), "index_codebase " + path,
            "--allow-root")
for d in [T + "/etc", other, cwd, T]:
    if os.path.exists(d + "/.mcpidx"):
        fail("index_codebase wrote %s/.mcpidx" % d)
r = s.call("index_codebase", {"path": "."})
if r.get("isError") or r["structuredContent"]["path"] != os.path.realpath(repo):
    fail("path '.' should build the served repository, got %s" % text(r)[:300])
if os.path.exists(cwd + "/.mcpidx"):
    fail("a relative path was resolved against the server's working directory")
r = s.call("index_codebase", {"path": "src"})
refused(r, "a subdirectory of the served repository", "outside")
r = s.call("index_codebase", {})
if r.get("isError"):
    fail("no path builds the served repository: %s" % text(r)[:300])
s.close()

# --allow-root: trees under it may be built; the server keeps serving repo.
s = Stdio([repo, "--allow-root", T + "/allowed"], cwd=cwd)
s.init()
r = s.call("index_codebase", {"path": T + "/allowed/deep/tree"})
if r.get("isError") or not os.path.exists(T + "/allowed/deep/tree/.mcpidx/data.mdb"):
    fail("a tree under --allow-root should be built: %s" % text(r)[:300])
if r["structuredContent"]["stats"]["files"] != 1:
    fail("stats of the allowed tree: %r" % r["structuredContent"]["stats"])
r = s.call("goto_definition", {"symbol": "deep_only_fn"})
if not r.get("isError") and r["structuredContent"]["definitions"]:
    fail("the server switched to serving the allowed tree")
r = s.call("goto_definition", {"symbol": "login"})
if r.get("isError"):
    fail("the served repository stopped answering: %s" % text(r)[:200])
refused(s.call("index_codebase", {"path": other}), "a tree outside --allow-root",
        "--allow-root")
s.close()
if subprocess.run([MCPIDX, "serve", repo, "--allow-root", T + "/nope"],
                  stdin=subprocess.DEVNULL, capture_output=True).returncode == 0:
    fail("a missing --allow-root directory was accepted")

# A packed index is read-only.
build(repo)
pack = T + "/repo.mcpidx"
r = subprocess.run([MCPIDX, "pack", repo + "/.mcpidx", "-o", pack], capture_output=True, text=True)
if r.returncode:
    fail("pack: " + r.stderr)
s = Stdio([pack], cwd=cwd)
s.init()
refused(s.call("index_codebase", {}), "index_codebase on a packed index", "packed")
refused(s.call("index_codebase", {"path": repo}), "index_codebase beside a packed index", "packed")
if os.path.exists(T + "/.mcpidx"):
    fail("index_codebase on a packed index wrote beside it")
s.close()
print("ok")
PY
