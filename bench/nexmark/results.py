"""RESULTS.md's bookkeeping for bench/nexmark/compare-flink.

RESULTS.md keeps the last comparison of each query at each event count. A run's section
is appended; in the older sections at the same event count, the table rows of the queries
this run compared again are removed (with a line saying so), and
a section left with no query row is dropped. Sections at other event counts stay whole.

    python3 bench/nexmark/results.py OUT EVENTS SECTION_FILE q0 q1 ...

merges the section held in SECTION_FILE into OUT (created with INTRO when missing).
`python3 -m unittest bench/nexmark/results_test.py` checks merge().
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
        names = ", ".join(_ROW.match(l).group(1) for l in gone)
        rest.append("")
        rest.append("(the rows of %s: replaced by a later run at this event count, below)" % names)
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
