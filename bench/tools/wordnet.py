#!/usr/bin/python3
"""wordnet.py - what model-free query expansion earns on find_tools' query set.

    wordnet.py TEXTS.tsv QUERIES.tsv[,MORE.tsv...] [--grid]

Expands every word of a task with its WordNet (Debian's wordnet-base)
relatives — the lemmas of its most frequent senses, their hypernyms,
derivationally related forms, similar and also-see words, and optionally the
words of the sense's definition — at a fraction of a query word's weight, and
ranks the tools with BM25F over the same fields and weights as find_tools
(name parts, title, description, parameter names and docs, server; Snowball
stemming).  Prints recall@5 by slice and half with and without the
expansion.  --grid searches the expansion's settings on the tuning half
(odd lines) only and prints the best five; the default settings are the
grid's best on that half (ties: the fewest relations used).  The held-out
half is what the settings never saw.  Each query file has its own halves.
The last rows ("wordnet-both") expand both sides: the words of each tool's
name, title and first sentence too, the task's expansion matched against
that bag at a fraction (WN_BOTH) of the BM25F score.  Needs: apt-get install wordnet-base
python3-snowballstemmer.
"""
import collections
import os
import itertools
import math
import re
import sys

WN = "/usr/share/wordnet/"
POS = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
REL = {"@": "hyper", "@i": "hyper", "+": "deriv", "&": "sim", "^": "also", "*": "ent",
       ">": "cause", "\\": "pert", "=": "attr", "~": "hypo", "$": "vgrp"}
SUF = {"n": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
             ("shes", "sh"), ("men", "man"), ("ies", "y")],
       "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
             ("ing", "e"), ("ing", "")],
       "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")], "r": []}
STOP = set("""a an the of to in on for and or is are be by with from as at it its this that
these those i me my you your we our us what which who whom how when where why all any some
every each do does did done not no can could would should will shall may might must into out
up down over under about again there here than then so such very just only also more most
other another one two same own if else them they their he she his her him was were been being
has have had having get got""".split())
GLOSS_STOP = STOP | set("something someone act make cause person thing having use used "
                        "especially usually etc".split())
FIELD_W = [1.5, 0.0, 1.5, 1.5, 0.8, 2.0]   # find_tools' weights (format/catalog.c)
SLICES = [("all", ""), ("same-name", "same"), ("paraphrase", "para"), ("reworded", "reword"),
          ("multi-tool", "multi")]
DEFAULT = dict(senses=1, syn=1.0, hyper=0.5, deriv=0.7, sim=0.5, also=0.3, ent=0.3, cause=0.3,
               pert=0.5, attr=0.3, hypo=0.0, vgrp=0.3, gloss=0.0, w=0.3, oov_only=0)

try:
    import snowballstemmer
    STEM = snowballstemmer.stemmer("english").stemWord
except ImportError:
    sys.exit("wordnet.py: needs python3-snowballstemmer (apt-get install python3-snowballstemmer)")


def toks(s):
    s = re.sub(r"([a-z])([A-Z])", r"\1 \2", s)
    return [STEM(w) for w in (x.lower() for x in re.findall(r"[A-Za-z]+|[0-9]+", s))
            if w not in STOP and len(w) > 1]


def load_wordnet():
    idx, data, exc = {}, {}, {}
    try:
        for p, f in POS.items():
            for ln in open(WN + "index." + f, encoding="latin-1"):
                if ln.startswith(" "):
                    continue
                a = ln.split()
                idx[(a[0], p)] = a[4 + int(a[3]) + 2:]
            for ln in open(WN + "data." + f, encoding="latin-1"):
                if ln.startswith(" "):
                    continue
                body, _, gloss = ln.partition("|")
                a = body.split()
                wc = int(a[3], 16)
                k = 4 + 2 * wc
                ptrs = []
                for i in range(int(a[k])):
                    sym, o, pp = a[k + 1 + 4 * i:k + 4 + 4 * i]
                    ptrs.append((sym, o, "a" if pp == "s" else pp))
                data[(a[0], p)] = ([a[4 + 2 * i].lower() for i in range(wc)], ptrs, gloss.strip())
            for ln in open(WN + f + ".exc", encoding="latin-1"):
                a = ln.split()
                if len(a) >= 2:
                    exc.setdefault((a[0], p), a[1])
    except OSError as e:
        sys.exit("wordnet.py: %s (apt-get install wordnet-base)" % e)
    return idx, data, exc


def lemmas(w, p, idx, exc):
    out = [exc[(w, p)]] if (w, p) in exc and (exc[(w, p)], p) in idx else []
    if (w, p) in idx:
        out.append(w)
    out += [w[:-len(s)] + r for s, r in SUF[p] if w.endswith(s) and (w[:-len(s)] + r, p) in idx]
    return list(dict.fromkeys(out))


class Ranker:
    def __init__(self, texts, tasks, wn):
        self.docs = []
        for r in texts:
            fields = [r[0].split("/", 1)[1].replace("_", " ").replace("-", " ")] + r[1:6]
            tf, n = collections.Counter(), 0.0
            for f, w in zip(fields, FIELD_W):
                for t in toks(f):
                    tf[t] += w
                    n += w
            self.docs.append((r[0], tf, n))
        self.avg = sum(d[2] for d in self.docs) / len(self.docs)
        self.df = collections.Counter(t for d in self.docs for t in d[1])
        self.tasks, self.wn = tasks, wn
        self.cache = {}
        self.bags = None

    def doc_bags(self, texts, P):
        """Both sides: each tool's name, title and first description sentence
        expanded like a task (P), a bag matched by the task's expansion."""
        self.bags = []
        for r in texts:
            src = " ".join([r[0].split("/", 1)[1].replace("_", " ").replace("-", " "), r[1],
                            re.split(r"(?<=[.!?])\s", r[2])[0]])
            src = re.sub(r"([a-z])([A-Z])", r"\1 \2", src)
            bag = collections.Counter()
            for w in set(x.lower() for x in re.findall(r"[A-Za-z]+", src)):
                if w not in STOP:
                    for t, wt in self.expand(w, P).items():
                        bag[t] = max(bag[t], wt)
            self.bags.append((bag, sum(bag.values())))
        self.bavg = sum(b[1] for b in self.bags) / len(self.bags)
        self.bdf = collections.Counter(t for b in self.bags for t in b[0])

    def expand(self, word, P):
        key = (word, P["senses"])
        if key not in self.cache:
            idx, data, exc = self.wn
            rel = []   # (kind, rank, term)
            for p in "nvar":
                for lem in lemmas(word, p, idx, exc):
                    for rank, off in enumerate(idx[(lem, p)][:P["senses"]]):
                        words, ptrs, gloss = data[(off, p)]
                        rel += [("syn", rank, t) for x in words for t in toks(x.replace("_", " "))]
                        for sym, o, pp in ptrs:
                            if sym in REL:
                                rel += [(REL[sym], rank, t) for x in data[(o, pp)][0]
                                        for t in toks(x.replace("_", " "))]
                        rel += [("gloss", rank, t) for t in toks(gloss.split(";")[0].split('"')[0])
                                if t not in GLOSS_STOP]
            self.cache[key] = rel
        out = {}
        for kind, rank, t in self.cache[key]:
            wt = P.get(kind, 0) / (1 + 0.5 * rank)
            if wt > out.get(t, 0):
                out[t] = wt
        return out

    def top5(self, q, P):
        Q = {t: float(c) for t, c in collections.Counter(toks(q)).items()}
        if P:
            for w in re.findall(r"[A-Za-z]+", q):
                w = w.lower()
                if w in STOP or (P["oov_only"] and STEM(w) in self.df):
                    continue
                for t, wt in self.expand(w, P).items():
                    if Q.get(t, 0) < wt * P["w"]:
                        Q[t] = wt * P["w"]
        acc, N = collections.Counter(), len(self.docs)
        if P and self.bags:   # both sides: the task's expansion meets the tools'
            QX = collections.Counter()
            for w in re.findall(r"[A-Za-z]+", q):
                if w.lower() not in STOP:
                    for t, wt in self.expand(w.lower(), P).items():
                        QX[t] = max(QX[t], wt)
            for t, qw in QX.items():
                idf = math.log(1 + (N - self.bdf[t] + .5) / (self.bdf[t] + .5))
                for (name, _, _), (bag, bn) in zip(self.docs, self.bags):
                    if t in bag:
                        tfn = bag[t] / (0.25 + 0.75 * bn / self.bavg)
                        acc[name] += P["both"] * qw * idf * tfn * 2.2 / (1.2 + tfn)
            Q = {t: float(c) for t, c in collections.Counter(toks(q)).items()}
        for t, qw in Q.items():
            if t not in self.df:
                continue
            idf = math.log(1 + (N - self.df[t] + .5) / (self.df[t] + .5))
            for name, tf, n in self.docs:
                if t in tf:
                    tfn = tf[t] / (0.25 + 0.75 * n / self.avg)
                    acc[name] += qw * idf * tfn * 2.2 / (1.2 + tfn)
        return [n for n, _ in sorted(acc.items(), key=lambda x: (-x[1], x[0]))[:5]]

    def recall(self, P):
        res = collections.defaultdict(lambda: [0.0, 0])
        for sl, groups, q, half in self.tasks:
            got = self.top5(q, P)
            r = sum(1 for g in groups if any(x in got for x in g)) / len(groups)
            for s, key in SLICES:
                if key in sl:
                    res[(s, half)][0] += r
                    res[(s, half)][1] += 1
        return {k: (v[0] / v[1], v[1]) for k, v in res.items()}


def show(tag, r):
    for s, _ in SLICES:
        a, b = r[(s, 0)], r[(s, 1)]
        print("%-15s %-11s recall@5 tune %.3f (n=%d)  test %.3f (n=%d)" % (tag, s, a[0], a[1], b[0], b[1]))


def main():
    texts = [ln.rstrip("\n").split("\t") for ln in open(sys.argv[1])]
    tasks = []
    for f in sys.argv[2].split(","):   # each file its own halves
        n = 0
        for ln in open(f):
            if ln.startswith("#") or not ln.strip():
                continue
            sl, ex, q = ln.rstrip("\n").split("\t")
            tasks.append((sl, [g.split("|") for g in ex.split()], q, n % 2))
            n += 1
    rk = Ranker(texts, tasks, load_wordnet())
    if "--grid" in sys.argv:
        grid = dict(senses=[1, 2, 4], gloss=[0, 0.3, 0.6], hyper=[0, 0.5], hypo=[0, 0.3],
                    w=[0.15, 0.3, 0.5], oov_only=[0, 1])
        best = []
        for vals in itertools.product(*grid.values()):
            P = dict(DEFAULT, **dict(zip(grid, vals)))
            r = rk.recall(P)
            used = sum(1 for k in grid if P[k] and k not in ("senses", "w"))
            best.append((-(r[("paraphrase", 0)][0] + r[("all", 0)][0]), used, vals, P))
        best.sort(key=lambda x: x[:2])
        for b in best[:5]:
            print("tune: %s" % {k: b[3][k] for k in grid}, "paraphrase+all %.3f" % -b[0])
        return
    show("bm25f", rk.recall({}))
    show("bm25f+wordnet", rk.recall(DEFAULT))
    # Both sides: the tools' leading words (name, title, first sentence)
    # expanded like the task's, and the two expansions matched.
    # Defaults: the best tuning-half recall of gloss 0/0.5 x hypernyms 0/0.5
    # x weight 0.05/0.1/0.3 (WN_GLOSS, WN_HYPER, WN_BOTH to rerun them).
    P = dict(DEFAULT, gloss=float(os.environ.get("WN_GLOSS", 0.5)),
             hyper=float(os.environ.get("WN_HYPER", 0)), both=float(os.environ.get("WN_BOTH", 0.05)))
    rk.doc_bags(texts, P)
    show("wordnet-both", rk.recall(P))


main()
