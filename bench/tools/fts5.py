#!/usr/bin/env python3
"""fts5.py - the SQLite FTS5 peer of `make bench-tools`.

    fts5.py TEXTS.tsv QUERIES.tsv REPS [COPIES]

Indexes one row per tool (name, title, description, parameter names,
parameter descriptions, server; porter+unicode61 tokenizer, bm25 with equal
column weights), answers every task of the query set with an OR of its words
(top 5), and prints recall@5 by slice and half in the same lines as
tools_bench, then latency p50/p99 (in-process, warm).  With COPIES the
catalog is replicated under renamed servers up to 10,000 tools for timing.
"""
import re
import sqlite3
import sys
import time

SLICES = ["all", "same-name", "paraphrase", "reworded", "multi-tool"]


def load_tasks(paths):
    """QUERIES.tsv or several joined by ',' (each file its own halves)."""
    tasks = []
    for path in paths.split(","):
        n = 0
        for ln in open(path):
            if ln.startswith("#") or not ln.strip():
                continue
            sl, ex, q = ln.rstrip("\n").split("\t")
            tasks.append({"slices": sl, "groups": [g.split("|") for g in ex.split()], "q": q,
                          "half": n % 2})
            n += 1
    return tasks


def in_slice(t, s):
    return (s == "all" or (s == "same-name" and "same" in t["slices"]) or
            (s == "paraphrase" and "para" in t["slices"]) or
            (s == "reworded" and "reword" in t["slices"]) or
            (s == "multi-tool" and "multi" in t["slices"]))


def query_of(q):
    words = re.findall(r"\w+", q)
    return " OR ".join('"%s"' % w for w in words)


def main():
    texts, queries, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    target = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    rows = [ln.rstrip("\n").split("\t") for ln in open(texts)]
    base = list(rows)
    k = 1
    while target and len(rows) < target:
        for r in base:
            if len(rows) >= target:
                break
            srv, name = r[0].split("/", 1)
            rows.append(["%s-%d/%s" % (srv, k, name)] + r[1:6] + ["%s-%d" % (srv, k)])
        k += 1
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(name, title, descr, params, pdocs, server,"
               " tokenize='porter unicode61')")
    with db:
        db.executemany("INSERT INTO t VALUES (?,?,?,?,?,?)",
                       [(r[0].replace("_", " ").replace("-", " ") + " " + r[0],) + tuple(r[1:6])
                        for r in rows])
    names = [r[0] for r in rows]
    tasks = load_tasks(queries)

    def top5(q):
        cur = db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 5",
                         (query_of(q),))
        return [names[r[0] - 1] for r in cur]

    if not target:
        sums = {(s, h): [0.0, 0] for s in SLICES for h in (0, 1)}
        for t in tasks:
            got = top5(t["q"])
            found = sum(1 for g in t["groups"] if any(x in got for x in g))
            r = found / len(t["groups"])
            for s in SLICES:
                if in_slice(t, s):
                    sums[(s, t["half"])][0] += r
                    sums[(s, t["half"])][1] += 1
        for s in SLICES:
            a, b = sums[(s, 0)], sums[(s, 1)]
            if not a[1] + b[1]:
                continue
            both = (a[0] + b[0]) / max(1, a[1] + b[1])
            print("%-12s %-11s recall@5 tune %.3f (n=%d)  test %.3f (n=%d)  both %.3f" %
                  ("fts5", s, a[0] / max(1, a[1]), a[1], b[0] / max(1, b[1]), b[1], both))
    for t in tasks:  # warm
        top5(t["q"])
    lat, cpu = [], []
    for _ in range(reps):
        for t in tasks:
            t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
            top5(t["q"])
            cpu.append(time.thread_time_ns() - c0)
            lat.append(time.perf_counter_ns() - t0)
    lat.sort()
    cpu.sort()
    n = len(lat)
    print("fts5 bm25 %d tools: %d calls  wall p50 %.1f us  p99 %.1f us  max %.1f us | "
          "cpu p50 %.1f us  p99 %.1f us" %
          (len(rows), n, lat[n // 2] / 1e3, lat[n * 99 // 100] / 1e3, lat[-1] / 1e3,
           cpu[n // 2] / 1e3, cpu[n * 99 // 100] / 1e3))


main()
