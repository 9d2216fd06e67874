"""RESULTS.md's bookkeeping for bench/nexmark/compare-flink.

RESULTS.md keeps the last comparison of each query at each event count. A run's section
is appended; in the older sections at the same event count, the table rows of the queries
this run compared again are removed (with a line saying so), and
a section left with no query row is dropped. Sections at other event counts stay whole.

    python3 bench/nexmark/results.py OUT EVENTS SECTION_FILE q0 q1 ...

merges the section held in SECTION_FILE into OUT (created with INTRO when missing).
`python3 -m unittest bench/nexmark/results_test.py` checks merge() and golden_events().
"""

import os
import re
import sys

INTRO = (
    "# Nexmark: streamql against Flink 2.3 SQL\n\n"
    "Written by `bench/nexmark/compare-flink` (see its header). Each section is a run at "
    "one event count; a later run at that count replaces the rows of the queries it ran "
    "again (a section left without rows is removed).\n\n"
)

_ROW = re.compile(r"\| (q[0-9]+) \|")
_NOTE_TEXT = "(the rows of %s: replaced by a later run at this event count, below)"
_NOTE = re.compile(r"^\(the rows of (q[0-9]+(?:, q[0-9]+)*): replaced by a later run at this event count, below\)$")
_STREAM = re.compile(r"CREATE\s+STREAM\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)[^;]*?'events\.num'\s*=\s*'([0-9]+)'", re.I | re.S)
_READ = re.compile(r"^\.read\s+(\S+)", re.M)


def golden_events(case_dir):
    """The event count (a string such as "20000") that the streamql test case in
    case_dir (queries/tests/nexmark-qN) runs on: the 'events.num' of the Nexmark
    streams its query.sql declares, directly or in the scripts it .reads, in reading
    order (the first declaration of a stream holds: the later ones are CREATE STREAM
    IF NOT EXISTS, as queries/nexmark/ddl.sql's). None when the case is missing,
    declares no count, or its streams' counts differ: its golden is compared with
    Flink's table only in a run at that count."""
    counts = {}

    def scan(path, depth):
        if depth > 4 or not os.path.exists(path):
            return
        text = "\n".join(l for l in open(path, encoding="utf-8").read().split("\n") if not l.lstrip().startswith("--"))
        items = [(m.start(), "read", m.group(1)) for m in _READ.finditer(text)]
        items += [(m.start(), "stream", m) for m in _STREAM.finditer(text)]
        for _, kind, v in sorted(items, key=lambda i: i[0]):
            if kind == "read":
                scan(os.path.normpath(os.path.join(os.path.dirname(path), v)), depth + 1)
            else:
                counts.setdefault(v.group(1).lower(), v.group(2))

    scan(os.path.join(case_dir, "query.sql"), 0)
    values = set(counts.values())
    return values.pop() if len(values) == 1 else None


def merge(old, section, events, queries):
    """Returns RESULTS.md's text after a run: INTRO, old's sections (old is the file's
    text, "" when there is none) without their rows at events (an event count, as a
    string) of queries (names such as "q3"), then section (the run's "## N events, ..."
    section; ValueError without that heading)."""
    sections = old.split("\n## ")[1:]  # the part before the first is INTRO
    if not section.startswith("## "):
        raise ValueError("a run's section starts with '## N events, ...'")
    rerun = set(queries)
    kept = []
    for p in sections:
        if not p.startswith("%s events," % events):
            kept.append(p.rstrip("\n"))
            continue
        lines = p.rstrip("\n").split("\n")
        gone = [l for l in lines if _ROW.match(l) and _ROW.match(l).group(1) in rerun]
        if not gone:
            kept.append("\n".join(lines))
            continue
        rest = [l for l in lines if l not in gone]
        if not any(_ROW.match(l) for l in rest):
            continue
        # one note line a section: the queries of an earlier note, then these
        names = [_ROW.match(l).group(1) for l in gone]
        notes = [l for l in rest if _NOTE.match(l)]
        if notes:
            names = _NOTE.match(notes[0]).group(1).split(", ") + names
            rest = [l for l in rest if not _NOTE.match(l)]
            while rest and rest[-1] == "":
                rest.pop()
        rest.append("")
        rest.append(_NOTE_TEXT % ", ".join(names))
        kept.append("\n".join(rest))
    body = "".join("## " + p + "\n\n" for p in kept)
    return INTRO + body + section.rstrip("\n") + "\n"


def main(argv):
    out, events, section_file, *queries = argv
    old = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
    section = open(section_file, encoding="utf-8").read()
    new = merge(old, section, events, queries)
    with open(out, "w", encoding="utf-8") as f:
        f.write(new)


if __name__ == "__main__":
    main(sys.argv[1:])
