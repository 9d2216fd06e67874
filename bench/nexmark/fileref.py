#!/usr/bin/env python3
"""fileref.py: Nexmark q3, q4, q5, q7, q8, q13 and q20 over file data against a
reference written apart from streamql (issue 23's "Done when").

    python3 bench/nexmark/fileref.py [--sq BIN] [--events N] [--seed S] [--keep DIR]

streamql (BIN, default `streamql` on PATH) writes the nexmark connector's three
tables for N events (default 20,000) to csv files; with --seed the files are
perturbed (times stretched 10x, 5% of the rows moved back by up to 12 s, so
some rows are late, and some bids' prices changed); streamql runs each query
(queries/nexmark/qN.sql) over those files, and this script computes each
final table itself from the same files, by SPEC 2.3, 2.4 and 2.7: a row is
late for a join when its time is below its stream's watermark before it
(max(t - 4 s) of the rows before it in file order), a row joins only the
windows whose end is above that watermark, and over bounded files q3, q4,
q13 and q20 are lookup joins (SPEC 2.7's order of kinds: the right side is
read whole, only the left side has late rows). Prints one line per query,
EQUAL or DIFFER with a few rows of each side; exit 1 when any differs.
"""
import argparse, collections, csv, datetime, os, random, subprocess, sys, tempfile
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERIES = ["q3", "q4", "q5", "q7", "q8", "q13", "q20"]
EPOCH = datetime.datetime(1970, 1, 1)
DDL = """CREATE STREAM person (
  id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR,
  state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'file', 'path' = 'DIR/person.csv', 'format' = 'csv', 'csv.header' = 'true');
CREATE STREAM auction (
  id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT,
  `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'file', 'path' = 'DIR/auction.csv', 'format' = 'csv', 'csv.header' = 'true');
CREATE STREAM bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  `dateTime` TIMESTAMP(3), extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'file', 'path' = 'DIR/bid.csv', 'format' = 'csv', 'csv.header' = 'true');
"""


def ms(s):
    return (datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f") - EPOCH) // datetime.timedelta(milliseconds=1)


def fmt(m):
    return (EPOCH + datetime.timedelta(milliseconds=m)).strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (m % 1000)


def generate(sq, d, events):
    """Writes the nexmark connector's three tables for events events to d/<table>.csv."""
    for t in ["person", "auction", "bid"]:
        ddl = next(c for c in DDL.split(";\n") if c.startswith(f"CREATE STREAM {t} "))
        ddl = ddl.replace(f"'connector' = 'file', 'path' = 'DIR/{t}.csv', 'format' = 'csv', 'csv.header' = 'true'",
                          f"'connector' = 'nexmark', 'table' = '{t}', 'events.num' = '{events}'")
        with open(os.path.join(d, f"{t}.csv"), "w") as out:
            subprocess.run([sq, "--format", "csv", "-e", f"{ddl}; SELECT * FROM {t};"], stdout=out, check=True)


def perturb(d, seed):
    rnd, t0 = random.Random(seed), None
    for name in ["person", "auction", "bid"]:
        rows = list(csv.reader(open(f"{d}/{name}.csv")))
        i = rows[0].index("dateTime")
        for r in rows[1:]:
            t0 = ms(r[i]) if t0 is None else min(t0, ms(r[i]))
    for name in ["person", "auction", "bid"]:
        rows = list(csv.reader(open(f"{d}/{name}.csv")))
        h = rows[0]
        i = h.index("dateTime")
        for r in rows[1:]:
            nt = t0 + (ms(r[i]) - t0) * 10
            if rnd.random() < 0.05:
                nt -= rnd.randint(0, 12000)
            r[i] = fmt(nt)
            if name == "auction":
                j = h.index("expires")
                r[j] = fmt(t0 + (ms(r[j]) - t0) * 10)
            if name == "bid" and rnd.random() < 0.02:
                r[2] = str(rnd.choice([1, 99933991, 5]))
        with open(f"{d}/{name}.csv", "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)


def run_engine(sq, d):
    got = {}
    for q in QUERIES:
        sql = os.path.join(d, f"run_{q}.sql")
        with open(sql, "w") as f:
            f.write(DDL.replace("DIR", d) + f".read {ROOT}/queries/nexmark/{q}.sql\n")
        out = subprocess.run([sq, "--format", "csv", "--side-dir", os.path.join(d, "side-" + q), sql],
                             capture_output=True, text=True, check=True).stdout
        rows = list(csv.reader(out.splitlines()))[1:]
        if q == "q4":  # AVG is DOUBLE (SPEC 2.4): compared as numbers
            rows = [(r[0], repr(float(r[1]))) for r in rows]
        got[q] = sorted(tuple(r) for r in rows)
    return got


def load(d, name):
    rows = list(csv.DictReader(open(f"{d}/{name}.csv")))
    wm = None
    for r in rows:
        r["t"] = ms(r["dateTime"])
        r["wm"] = wm  # the stream's watermark before the row (SPEC 2.3)
        r["late"] = wm is not None and r["t"] < wm
        wm = r["t"] - 4000 if wm is None else max(wm, r["t"] - 4000)
    return rows


def reference(d):
    P, A, B = load(d, "person"), load(d, "auction"), load(d, "bid")
    ontime = lambda rows: [r for r in rows if not r["late"]]
    res = {}
    pid = collections.defaultdict(list)
    for p in P:
        pid[int(p["id"])].append(p)
    res["q3"] = [(p["name"], p["city"], p["state"], a["id"]) for a in ontime(A) if a["category"] == "10"
                 for p in pid[int(a["seller"])] if p["state"] in ("OR", "ID", "CA")]
    aid = collections.defaultdict(list)
    for a in A:
        aid[int(a["id"])].append(a)
    bc = ["auction", "bidder", "price", "channel", "url", "dateTime", "extra"]
    ac = ["itemName", "description", "initialBid", "reserve", "dateTime", "expires", "seller", "category", "extra"]
    res["q20"] = [tuple(b[c] for c in bc) + tuple(a[c] for c in ac) for b in ontime(B)
                  for a in aid[int(b["auction"])] if a["category"] == "10"]
    bid_of = collections.defaultdict(list)
    for b in B:
        bid_of[int(b["auction"])].append(b)
    final = {}
    for a in ontime(A):
        for b in bid_of[int(a["id"])]:
            if a["t"] <= b["t"] <= ms(a["expires"]):
                k = (a["id"], a["category"])
                final[k] = max(final.get(k, -2**63), int(b["price"]))
    cat = collections.defaultdict(list)
    for (_, c), v in final.items():
        cat[c].append(v)
    res["q4"] = [(c, repr(float(Fraction(sum(v), len(v))))) for c, v in cat.items()]
    cnt = collections.Counter()  # q5: HOP 2 s / 10 s, the windows still open
    for b in B:
        s = b["t"] // 2000 * 2000
        while s > b["t"] - 10000:
            if b["wm"] is None or s + 10000 > b["wm"]:
                cnt[(b["auction"], s)] += 1
            s -= 2000
    maxn = {}
    for (_, s), n in cnt.items():
        maxn[s] = max(maxn.get(s, 0), n)
    res["q5"] = [(au, str(n)) for (au, s), n in cnt.items() if n >= maxn[s]]
    open_tumble = lambda r: r["wm"] is None or r["t"] // 10000 * 10000 + 10000 > r["wm"]
    wmax = {}
    for b in B:
        if open_tumble(b):
            e = b["t"] // 10000 * 10000 + 10000
            wmax[e] = max(wmax.get(e, -2**63), int(b["price"]))
    res["q7"] = [(b["auction"], b["price"], b["bidder"], b["dateTime"], b["extra"]) for b in ontime(B)
                 for e, m in wmax.items() if int(b["price"]) == m and e - 10000 <= b["t"] <= e]
    pg = {(p["id"], p["name"], p["t"] // 10000) for p in P if open_tumble(p)}
    ag = {(a["seller"], a["t"] // 10000) for a in A if open_tumble(a)}
    res["q8"] = [(i, n, fmt(w * 10000)) for (i, n, w) in pg if (i, w) in ag]
    side = collections.defaultdict(list)
    for r in csv.reader(open(f"{ROOT}/queries/nexmark/side_input.csv")):
        side[int(r[0])].append(r[1])
    res["q13"] = [(b["auction"], b["bidder"], b["price"], b["dateTime"], v)
                  for b in ontime(B) for v in side[int(b["auction"]) % 10000]]
    return {q: sorted(tuple(str(x) for x in r) for r in rows) for q, rows in res.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sq", default="streamql")
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--keep")
    a = ap.parse_args()
    d = a.keep or tempfile.mkdtemp(prefix="nexmark-fileref-")
    os.makedirs(d, exist_ok=True)
    generate(a.sq, d, a.events)
    if a.seed is not None:
        perturb(d, a.seed)
    got, want = run_engine(a.sq, d), reference(d)
    bad = 0
    for q in QUERIES:
        same = got[q] == want[q]
        bad += not same
        print(f"{q}: streamql {len(got[q])} rows, reference {len(want[q])}: {'EQUAL' if same else 'DIFFER'}")
        if not same:
            g, w = set(got[q]), set(want[q])
            print("  only streamql:", sorted(g - w)[:3], "\n  only reference:", sorted(w - g)[:3])
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
