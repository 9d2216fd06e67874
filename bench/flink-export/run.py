#!/usr/bin/env python3
"""bench/flink-export: checks `streamql export --flink` on a real Flink (issue 27).

For each script (the seed programs of queries/, the acceptance cases of
../shared/cases, the runnable Nexmark queries of queries/nexmark, those
tests/nexmark_test.go lists, and the cases of queries/tests but its
nexmark-* ones, tests-NAME) it runs streamql on the script (--format csv --side-dir), exports
it with `streamql export --flink`, runs the export on Apache Flink 2.3 in a local
MiniCluster (RunScript.java: print tables become csv files, nothing else
changes), and compares each output's rows as sorted multisets; an updating
output (streamql prints its changelog, op first: SPEC 2.8) is written by
Flink as debezium-json files instead, and both changelogs are applied to
final tables, which are compared (so are the main outputs of a script the
export runs in streaming mode while a query's result is final in streamql:
Flink's changelog against streamql's final rows). socket and
datagen sources are replaced by files of the same rows first, in the script
both engines run. The Nexmark queries read json files of the nexmark
connector's 20,000 events (bench/nexmark/lib.sh's nexmark_events, as
bench/nexmark/compare-flink does) instead of the connector, and Flink gets
q14's count_char as the Java CountChar of bench/nexmark/flink, whose Maven
build (shared with compare-flink) puts it on the classpath. It writes
RESULTS.md next to itself.

Usage (from the repository's top folder; Java 17 and mvn on PATH):
    python3 bench/flink-export/run.py [NAME ...]
NAME picks scripts by name (e.g. split_sensors, case-anti-join).
Flink runs with parallelism 2 and a 1 GiB task manager, all scripts in one JVM.
"""
import csv
import datetime
import glob
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(os.path.dirname(TOP), "shared", "cases")
SEEDS = ["split_sensors", "filter_by_stream", "late_data", "socket_filter", "datagen_orders", "split_to_file"]
NEXMARK_EVENTS = 20000
NEXMARK_FLINK = os.path.join(TOP, "bench", "nexmark", "flink")
# the Java function Flink runs for a WASM function of queries/udf (bench/nexmark/flink)
JAVA_UDFS = {"count_char": "com.github.nexmark.flink.udf.CountChar"}


def nexmark_runnable():
    """The queries tests/nexmark_test.go lists as runnable, in order (lib.sh's nexmark_runnable)."""
    text = open(os.path.join(TOP, "tests", "nexmark_test.go"), encoding="utf-8").read()
    qs = re.findall(r'^\s*"(q[0-9]+)": +"",', text, re.M)
    return sorted(qs, key=lambda q: int(q[1:]))


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def replace_with(script, stream, with_clause):
    """Replaces the WITH (...) of CREATE STREAM stream by with_clause."""
    m = re.search(r"CREATE\s+STREAM\s+" + re.escape(stream) + r"\b", script, re.I)
    i = script.index("WITH", m.end())
    j = script.index("(", i)
    depth, k, q = 0, j, False
    while True:
        c = script[k]
        if c == "'":
            q = not q
        elif not q and c == "(":
            depth += 1
        elif not q and c == ")":
            depth -= 1
            if depth == 0:
                break
        k += 1
    return script[:i] + with_clause + script[k + 1:]


def drop_explain(script):
    return re.sub(r"(?ms)^EXPLAIN\b.*?;\s*$", "", script)


def prepare(name, sq):
    """Makes the work folder of one script; returns (dir, note)."""
    work = os.path.join(WORK, name)
    os.makedirs(work)
    note = ""
    if name.startswith("nexmark-"):
        q = name[len("nexmark-"):]
        data = os.path.join(WORK, "nexmark")
        for f in glob.glob(os.path.join(TOP, "queries", "nexmark", "*.csv")):  # (q13's side input: Flink reads it from here)
            shutil.copy(f, work)
        script = ".read %s\n.read %s\n" % (os.path.join(data, "files.sql"), os.path.join(TOP, "queries", "nexmark", q + ".sql"))
        open(os.path.join(work, "query.sql"), "w", encoding="utf-8").write(script)
        return work, "nexmark connector replaced by json files of its %d events" % NEXMARK_EVENTS
    if name.startswith("tests-"):  # queries/tests/<name>: the case folder, as streamql test runs it
        src = os.path.join(TOP, "queries", "tests", name[len("tests-"):])
        for f in os.listdir(src):
            p = os.path.join(src, f)
            if f != "expected":
                (shutil.copytree if os.path.isdir(p) else shutil.copy)(p, os.path.join(work, f))
        # its .read lines name scripts relative to the case folder
        script = open(os.path.join(work, "query.sql"), encoding="utf-8").read()
        script = re.sub(r"(?m)^\.read (\S+)", lambda m: ".read " + os.path.normpath(os.path.join(src, m.group(1))), script)
        open(os.path.join(work, "query.sql"), "w", encoding="utf-8").write(script)
        for f in glob.glob(os.path.join(TOP, "queries", "*.csv")):  # (a script it reads names queries/'s data)
            if not os.path.exists(os.path.join(work, os.path.basename(f))):
                shutil.copy(f, work)
        return work, note
    if name.startswith("case-"):
        src = os.path.join(CASES, name[5:])
        for f in os.listdir(src):
            p = os.path.join(src, f)
            if f != "expected":
                (shutil.copytree if os.path.isdir(p) else shutil.copy)(p, os.path.join(work, f))
        return work, note
    q = os.path.join(TOP, "queries")
    for f in glob.glob(os.path.join(q, "*.csv")):
        shutil.copy(f, work)
    script = drop_explain(open(os.path.join(q, name + ".sql"), encoding="utf-8").read())
    if name == "socket_filter":  # the same rows as the filter-side case (same seed program)
        shutil.copy(os.path.join(CASES, "filter-side", "kv.csv"), os.path.join(work, "kv.csv"))
        script = replace_with(script, "kv", "WITH ('connector' = 'file', 'path' = 'kv.csv', 'format' = 'csv')")
        note = "socket replaced by kv.csv (../shared/cases/filter-side)"
    if name == "datagen_orders":  # the rows of the seeded datagen_orders_fast, as a file
        fast = open(os.path.join(q, "datagen_orders_fast.sql"), encoding="utf-8").read()
        fast = re.sub(r"(?s)SELECT.*", "SELECT * FROM orders;", fast)
        r = sh([SQ, "--format", "csv", "-e", fast])
        rows = r.stdout.split("\n", 1)[1]
        open(os.path.join(work, "orders.csv"), "w", encoding="utf-8").write(rows)
        script = replace_with(script, "orders", "WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv')")
        note = "datagen replaced by orders.csv (the %d rows of datagen_orders_fast)" % rows.count("\n")
    open(os.path.join(work, "query.sql"), "w", encoding="utf-8").write(script)
    return work, note


TIMESTAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.(\d*?))?0*$")


def value(field):
    """A csv field as a value: a timestamp without its fraction's trailing
    zeros (Flink prints 00:00:00 where streamql prints 00:00:00.000)."""
    m = TIMESTAMP.match(field)
    if m:
        return m.group(1) + ("." + m.group(2) if m.group(2) else "")
    return field


def rows_of(text, header):
    out = []
    for r in csv.reader(io.StringIO(text)):
        out.append(tuple(value(f) for f in r))
    if header and out:
        out = out[1:]
    return sorted(out)


def read_dir(d):
    text = ""
    if os.path.isdir(d):
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if not f.startswith(".") or ".part" in f:
                    text += open(os.path.join(root, f), encoding="utf-8").read()
    return text


def outputs(flink_sql):
    """The INSERT targets of an export: (table, kind, detail) in order."""
    tables = {}
    for m in re.finditer(r"CREATE TABLE `((?:[^`]|``)+)` \((.*?)\n\) WITH \((.*?)\);", flink_sql, re.S):
        t = m.group(1).replace("``", "`")
        opts = dict(re.findall(r"'([^']*)' = '((?:[^']|'')*)'", m.group(3)))
        cols = re.findall(r"^  `((?:[^`]|``)+)` ", m.group(2), re.M)
        tables[t] = (opts, [c.replace("``", "`") for c in cols])
    out = []
    for m in re.finditer(r"^INSERT INTO `((?:[^`]|``)+)`", flink_sql, re.M):
        t = m.group(1).replace("``", "`")
        if any(o[0] == t for o in out):
            continue
        opts, cols = tables.get(t, ({}, []))
        out.append((t, opts, cols))
    return out


# the export's listed difference of a query whose result streamql writes once,
# final, while the export runs in Flink's streaming mode, where it is a changelog
STREAMING_FINAL = "streamql writes its result once, final; this export runs in Flink's streaming mode"


def updating(res, work, flink_sql):
    """The print tables Flink writes as debezium-json files instead of csv (its
    filesystem sink takes changes in that format), each mapped to whether
    streamql's output is a changelog (an op column first, SPEC 2.8: True) or
    its final rows (False). The latter are the main outputs of a script the
    export runs in streaming mode although some query's result is final in
    streamql (the listed difference STREAMING_FINAL): Flink's csv sink would
    refuse its changelog and fail the whole statement set, so every main
    output without an op column goes through debezium-json (an insert-only
    one too: its records are all op c) and is compared as a final table."""
    ups = {}
    lines = set(res["sq_out"].splitlines())
    streaming_final = STREAMING_FINAL in flink_sql
    for t, opts, cols in outputs(flink_sql):
        if opts.get("connector") != "print":
            continue
        ident = opts["print-identifier"]
        if ident == "main":
            if "op," + header_line(cols) in lines:
                ups[t] = True
            elif streaming_final:
                ups[t] = False
        else:
            p = os.path.join(work, "sq-side", ident + ".csv")
            if os.path.exists(p) and open(p, encoding="utf-8").readline().startswith("op,"):
                ups[t] = True
    return ups


def canon(field):
    """A field for comparing final tables: numbers by value (json gives
    120.0 where csv may give 120), timestamps as value()."""
    field = value(field)
    try:
        return repr(float(field))
    except ValueError:
        return field


def final_of_csv(text):
    """Applies streamql's csv changelog (op first) to a final table: +I and +U
    add a row, -U and -D take one back."""
    table = {}
    rows = list(csv.reader(io.StringIO(text)))
    for r in rows[1:]:
        if not r:
            continue
        row = tuple(canon(f) for f in r[1:])
        table[row] = table.get(row, 0) + (1 if r[0] in ("+I", "+U") else -1)
    return sorted(r for r, n in table.items() for _ in range(max(n, 0)))


def final_of_debezium(text, cols):
    """Applies Flink's debezium-json changelog (op c: after added, d: before
    taken back) to a final table."""
    import json
    table = {}

    def row(obj):
        out = []
        for c in cols:
            v = obj.get(c)
            out.append("" if v is None else ("true" if v is True else "false" if v is False else str(v)))
        return tuple(canon(f) for f in out)

    for line in text.splitlines():
        if not line.strip():
            continue
        m = json.loads(line)
        if m.get("op") == "c" and m.get("after") is not None:
            r = row(m["after"])
            table[r] = table.get(r, 0) + 1
        elif m.get("op") == "d" and m.get("before") is not None:
            r = row(m["before"])
            table[r] = table.get(r, 0) - 1
    return sorted(r for r, n in table.items() for _ in range(max(n, 0)))


def main_blocks(stdout, headers):
    """Splits streamql's csv stdout into one block per main query (a
    changelog's header has op first)."""
    blocks, cur = [], None
    want = list(headers)
    for line in stdout.splitlines(keepends=True):
        if want and line.rstrip("\n") in (want[0], "op," + want[0]):
            want.pop(0)
            cur = []
            blocks.append(cur)
            continue
        if cur is not None:
            cur.append(line)
    return ["".join(b) for b in blocks]


def header_line(cols):
    s = io.StringIO()
    csv.writer(s, lineterminator="").writerow(cols)
    return s.getvalue()


def main():
    global WORK, SQ
    picks = set(sys.argv[1:])
    WORK = tempfile.mkdtemp(prefix="flink-export-")
    SQ = os.path.join(WORK, "streamql")
    r = sh(["go", "build", "-o", SQ, "./cmd/streamql"], cwd=TOP)
    if r.returncode:
        sys.exit("go build: " + r.stderr)
    r = sh(["mvn", "-q", "compile", "dependency:build-classpath", "-Dmdep.outputFile=target/cp.txt"], cwd=HERE)
    if r.returncode:
        sys.exit("mvn: " + r.stdout + r.stderr)
    cp = os.path.join(HERE, "target", "classes") + ":" + open(os.path.join(HERE, "target", "cp.txt")).read().strip()
    own = os.path.join(TOP, "queries", "tests")
    names = SEEDS + ["case-" + c for c in sorted(os.listdir(CASES))] + ["nexmark-" + q for q in nexmark_runnable()]
    names += ["tests-" + c for c in sorted(os.listdir(own)) if os.path.isdir(os.path.join(own, c)) and not c.startswith("nexmark-")]
    if picks:
        names = [n for n in names if n in picks]
    if any(n.startswith("nexmark-") for n in names):
        # the events as json files (lib.sh), and bench/nexmark/flink's classes (its Java UDFs)
        r = sh(["bash", "-c", '. bench/nexmark/lib.sh && nexmark_events "$0" "$1" "$2" "$3" >/dev/null', TOP, os.path.join(WORK, "nexmark"), str(NEXMARK_EVENTS), SQ], cwd=TOP)
        if r.returncode:
            sys.exit("nexmark events: " + r.stderr)
        r = sh(["mvn", "-q", "-B", "compile", "dependency:build-classpath", "-Dmdep.outputFile=target/cp.txt"], cwd=NEXMARK_FLINK)
        if r.returncode:
            sys.exit("mvn (bench/nexmark/flink): " + r.stdout + r.stderr)
        cp += ":" + os.path.join(NEXMARK_FLINK, "target", "classes")
    runs, results = [], {}
    for name in names:
        work, note = prepare(name, SQ)
        res = {"note": note, "diffs": [], "outputs": []}
        results[name] = res
        r = sh([SQ, "--format", "csv", "--side-dir", "sq-side", "query.sql"], cwd=work)
        res["sq_rc"], res["sq_out"], res["sq_err"] = r.returncode, r.stdout, r.stderr
        r = sh([SQ, "export", "--flink", "query.sql"], cwd=work)
        res["export_rc"] = r.returncode
        if r.returncode:
            res["verdict"] = "export failed: " + r.stderr.strip().splitlines()[0]
            continue
        open(os.path.join(work, "query.flink.sql"), "w", encoding="utf-8").write(r.stdout)
        res["flink_sql"] = r.stdout
        # a file sink: Flink writes a directory where streamql wrote its file, so
        # Flink's goes under flink-sinks/ (the only change to the export)
        run_sql = r.stdout
        for t, opts, _ in outputs(r.stdout):
            if opts.get("connector") == "filesystem":
                p = opts["path"]  # (absolute: the export resolves it from the script's folder)
                run_sql = run_sql.replace("'path' = '%s'" % p, "'path' = '%s'" % os.path.join(work, "flink-sinks", os.path.relpath(p, work)))
        # a WASM function: Flink runs the Java one of the same name, declared
        # before the statement set (the export's listed difference says so)
        for fn, cls in JAVA_UDFS.items():
            if re.search(r"function %s runs the WebAssembly module" % fn, r.stdout):
                run_sql = run_sql.replace("EXECUTE STATEMENT SET", "CREATE TEMPORARY FUNCTION %s AS '%s';\n\nEXECUTE STATEMENT SET" % (fn, cls), 1)
                res["note"] = "; ".join(x for x in (res["note"], "Flink runs %s as %s" % (fn, cls.rsplit(".", 1)[1])) if x)
        # an updating output (SPEC 2.8): Flink's changes as debezium-json
        # files, applied to a final table as streamql's changelog is
        res["updating"] = updating(res, work, r.stdout)
        for t in res["updating"]:
            run_sql = re.sub(r"(CREATE TABLE `%s` \((?:[^;]*?)\)) WITH \('connector' = 'print', 'print-identifier' = '(?:[^']|'')*'\);" % re.escape(t.replace("`", "``")),
                             lambda m: m.group(1) + " WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json');" % os.path.join("flink-changelog", t),
                             run_sql, count=1)
        open(os.path.join(work, "run.flink.sql"), "w", encoding="utf-8").write(run_sql)
        res["diffs"] = [l[5:] for l in r.stdout.splitlines() if l.startswith("--   ")]
        runs += [os.path.join(work, "run.flink.sql"), work, os.path.join(work, "flink-out")]
    if runs:
        r = sh(["java", "-Xmx768m", "-XX:ActiveProcessorCount=2", "-cp", cp, "streamql.flinkexport.RunScript"] + runs)
        open(os.path.join(WORK, "flink.log"), "w").write(r.stdout + r.stderr)
    for name, res in results.items():
        if "flink_sql" not in res:
            continue
        work = os.path.join(WORK, name)
        sp = os.path.join(work, "flink-out", "status.txt")
        status = open(sp, encoding="utf-8").read().strip() if os.path.exists(sp) else "failed: no status (the Flink JVM stopped before this script)"
        outs = outputs(res["flink_sql"])
        mains = [o for o in outs if o[1].get("print-identifier") == "main"]
        blocks = main_blocks(res["sq_out"], [header_line(o[2]) for o in mains])
        same = status == "ok" and res["sq_rc"] == 0
        details = []
        for t, opts, cols in outs:
            if t in res.get("updating", ()):
                ident = opts["print-identifier"]
                flink = final_of_debezium(read_dir(os.path.join(work, "flink-changelog", t)), cols)
                if ident == "main":
                    i = mains.index((t, opts, cols))
                    block = blocks[i] if i < len(blocks) else ""
                    if res["updating"][t]:
                        sq = final_of_csv("op," + header_line(cols) + "\n" + block)
                    else:
                        sq = sorted(tuple(canon(f) for f in r) for r in csv.reader(io.StringIO(block)) if r)
                else:
                    p = os.path.join(work, "sq-side", ident + ".csv")
                    sq = final_of_csv(open(p, encoding="utf-8").read() if os.path.exists(p) else "")
                ok = status == "ok" and flink == sq
                same = same and ok
                details.append("%s %d/%d rows of the final tables %s (changelogs applied)" % (ident, len(sq), len(flink), "equal" if ok else "DIFFER"))
                continue
            if opts.get("connector") == "print":
                flink = rows_of(read_dir(os.path.join(work, "flink-out", "table-" + t)), False)
                ident = opts["print-identifier"]
                if ident == "main":
                    i = mains.index((t, opts, cols))
                    sq = rows_of(blocks[i] if i < len(blocks) else "", False)
                else:
                    p = os.path.join(work, "sq-side", ident + ".csv")
                    sq = rows_of(open(p, encoding="utf-8").read() if os.path.exists(p) else "", True)
            elif opts.get("connector") == "filesystem":
                p = os.path.join(work, opts["path"])
                flink = rows_of(read_dir(os.path.join(work, "flink-sinks", os.path.relpath(p, work))), False)
                sq = rows_of(open(p, encoding="utf-8").read() if os.path.isfile(p) else "", True)
            else:
                details.append("%s: not compared (%s)" % (t, opts.get("connector")))
                continue
            ok = status == "ok" and flink == sq
            same = same and ok
            details.append("%s %d/%d rows %s" % (ident if opts.get("connector") == "print" else t, len(sq), len(flink), "equal" if ok else "DIFFER"))
        for side in ("errors", "late"):
            p = os.path.join(work, "sq-side", side + ".csv")
            if os.path.exists(p):
                n = len(rows_of(open(p, encoding="utf-8").read(), True))
                details.append("streamql '%s': %d rows (none in Flink)" % (side, n))
                same = False
        listed = [d for d in res["diffs"]]
        only_errors = all("malformed rows go to the side output" in d for d in listed)
        eligible = not listed or (only_errors and not os.path.exists(os.path.join(work, "sq-side", "errors.csv")))
        if status != "ok":
            details.append("Flink: " + status.splitlines()[-1][:200])
        res["eligible"] = eligible
        res["verdict"] = ("same rows" if same else "differs") + ("" if eligible else " (uses a listed difference)")
        res["details"] = details
    write_results(results)
    print(open(os.path.join(HERE, "RESULTS.md"), encoding="utf-8").read())
    print("work folder:", WORK)


def write_results(results):
    """Writes RESULTS.md: this run's rows, and with picked scripts (NAME ...)
    the previous rows of the scripts not run again, under their own run line."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    path = os.path.join(HERE, "RESULTS.md")
    runs, kept = [], []
    if sys.argv[1:] and os.path.exists(path):
        for line in open(path, encoding="utf-8").read().splitlines():
            if line.startswith("Last run: ") or line.startswith("Also: "):
                runs.append("Also: " + line.split(": ", 1)[1])
            elif line.startswith("| ") and not line.startswith("| script ") and line.split(" | ")[0][2:] not in results:
                kept.append(line)
    if not kept:
        runs = []
    lines = ["# bench/flink-export: results", "",
             "Last run: %s, `python3 bench/flink-export/run.py%s` (Apache Flink 2.3.0, local MiniCluster, parallelism 2)%s." % (
                 now, "".join(" " + a for a in sys.argv[1:]), ": the scripts it names; the other rows come from the runs below" if kept else "")] + runs + ["",
             "Each script runs on streamql (`--format csv --side-dir`) and, exported by `streamql export --flink`, on Flink;",
             "each output's rows are compared as sorted multisets (csv fields; NULL and '' compare equal; a timestamp as its value:",
             "Flink prints 00:00:00 where streamql prints 00:00:00.000).",
             "Eligible: the export lists no difference, or only the errors side output of a stream that had no malformed row.", "",
             "| script | eligible | verdict | outputs (streamql/Flink rows) | notes |", "|---|---|---|---|---|"]
    lines += kept
    for name, r in results.items():
        notes = [r["note"]] if r["note"] else []
        notes += ["listed: " + d.split(": ", 1)[1][:90] + "…" for d in r["diffs"] if "malformed rows go to the side output" not in d]
        lines.append("| %s | %s | %s | %s | %s |" % (name, "yes" if r.get("eligible") else "no", r.get("verdict", ""),
                                                   "; ".join(r.get("details", [])).replace("|", "\\|"),
                                                   "; ".join(notes).replace("|", "\\|")))
    open(os.path.join(HERE, "RESULTS.md"), "w", encoding="utf-8").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
