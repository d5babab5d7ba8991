"""The SQLite FTS5 peer of make bench-build: every text file of a tree
(UTF-8, no NUL byte, at most 1 MiB, as mcpidx's default cap) as one row
(path, body) of an FTS5 table with the default unicode61 tokenizer, in one
transaction.  Prints the number of rows.

usage: fts5_build.py TREE DB
"""
import os, sqlite3, sys

tree, db = sys.argv[1], sys.argv[2]
if os.path.exists(db):
    os.unlink(db)
con = sqlite3.connect(db)
con.execute("PRAGMA journal_mode=OFF")
con.execute("PRAGMA synchronous=OFF")
con.execute("CREATE VIRTUAL TABLE files USING fts5(path, body)")
n = 0
with con:
    for d, dirs, files in os.walk(tree):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p) or os.path.getsize(p) > (1 << 20):
                continue
            with open(p, "rb") as fh:
                b = fh.read()
            if b"\0" in b:
                continue
            try:
                t = b.decode("utf-8")
            except UnicodeDecodeError:
                continue
            con.execute("INSERT INTO files VALUES (?, ?)", (os.path.relpath(p, tree), t))
            n += 1
con.close()
print(n, "rows")
