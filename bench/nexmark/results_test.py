"""Checks results.merge: python3 -m unittest bench/nexmark/results_test.py"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402

HEAD = "| query | streamql rows | Flink rows | final tables | adaptation |\n|---|---|---|---|---|\n"


def section(events, when, *queries):
    rows = "".join("| %s | 1 | 1 | equal |  |\n" % q for q in queries)
    return "## %s events, %s UTC, streamql abc, Flink 2.3.0\n\n`cmd`\n\n%s%s" % (events, when, HEAD, rows)


def rows(text):
    """(heading's time, query) of every table row of text, in order."""
    out, when = [], None
    for line in text.splitlines():
        if line.startswith("## "):
            when = line.split(", ")[0][3:] + " " + line.split(", ")[1]
        elif results._ROW.match(line):
            out.append((when, results._ROW.match(line).group(1)))
    return out


class MergeTest(unittest.TestCase):
    def test_new_file(self):
        got = results.merge("", section(50000, "t1", "q0"), "50000", ["q0"])
        self.assertTrue(got.startswith(results.INTRO))
        self.assertEqual(rows(got), [("50000 events t1 UTC", "q0")])

    def test_partial_rerun_removes_only_those_rows(self):
        old = results.merge("", section(1000000, "t1", "q0", "q3", "q10"), "1000000", ["q0", "q3", "q10"])
        old = results.merge(old, section(50000, "t2", "q3"), "50000", ["q3"])
        got = results.merge(old, section(1000000, "t3", "q3", "q4"), "1000000", ["q3", "q4"])
        self.assertEqual(rows(got), [
            ("1000000 events t1 UTC", "q0"),
            ("1000000 events t1 UTC", "q10"),
            ("50000 events t2 UTC", "q3"),  # another event count: kept
            ("1000000 events t3 UTC", "q3"),
            ("1000000 events t3 UTC", "q4"),
        ])
        self.assertIn("(the rows of q3: replaced by a later run at this event count, below)", got)

    def test_section_left_without_rows_is_dropped(self):
        old = results.merge("", section(20000, "t1", "q1", "q2"), "20000", ["q1", "q2"])
        got = results.merge(old, section(20000, "t2", "q2", "q1", "q5"), "20000", ["q2", "q1", "q5"])
        self.assertNotIn("t1 UTC", got)
        self.assertEqual([q for _, q in rows(got)], ["q2", "q1", "q5"])

    def test_rerun_twice_is_stable(self):
        a = results.merge("", section(50000, "t1", "q0", "q1"), "50000", ["q0", "q1"])
        b = results.merge(a, section(50000, "t2", "q1"), "50000", ["q1"])
        c = results.merge(b, section(50000, "t3", "q1"), "50000", ["q1"])
        self.assertEqual(rows(c), [("50000 events t1 UTC", "q0"), ("50000 events t3 UTC", "q1")])
        self.assertEqual(c.count("## "), 2)

    def test_one_note_per_section(self):
        a = results.merge("", section(50000, "t1", "q0", "q1", "q2"), "50000", ["q0", "q1", "q2"])
        b = results.merge(a, section(50000, "t2", "q1"), "50000", ["q1"])
        c = results.merge(b, section(50000, "t3", "q2"), "50000", ["q2"])
        self.assertEqual(c.count("(the rows of"), 1)
        self.assertIn("(the rows of q1, q2: replaced by a later run at this event count, below)\n\n## 50000 events, t2", c)
        self.assertEqual(rows(c), [("50000 events t1 UTC", "q0"), ("50000 events t2 UTC", "q1"), ("50000 events t3 UTC", "q2")])

    def test_heading_required(self):
        with self.assertRaises(ValueError):
            results.merge("", "no heading", "50000", ["q0"])


class GoldenEventsTest(unittest.TestCase):
    def write(self, root, path, text):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)

    def test_counts(self):
        with tempfile.TemporaryDirectory() as top:
            root = os.path.join(top, "tests")
            self.write(root, "nexmark-events.sql", "CREATE STREAM bid (a INT) WITH ('connector' = 'nexmark', 'events.num' = '20000');\n")
            self.write(root, "../nexmark/q4.sql", "-- 'events.num' = '7' in a comment\n.read ddl.sql\nSELECT * FROM bid;\n")
            self.write(root, "../nexmark/ddl.sql", "CREATE STREAM IF NOT EXISTS bid (a INT) WITH ('events.num' = '100000');\n")
            self.write(root, "nexmark-q4/query.sql", "-- q4\n.read ../nexmark-events.sql\n.read ../../nexmark/q4.sql\n")
            self.write(root, "nexmark-q23/query.sql", "CREATE STREAM p (a INT) WITH ('events.num' = '50000');\nCREATE STREAM b (a INT) WITH ('events.num'='50000');\n")
            self.write(root, "nexmark-mixed/query.sql", ".read ../nexmark-events.sql\nCREATE STREAM x (a INT) WITH ('events.num' = '50000');\n")
            self.write(root, "nexmark-none/query.sql", "SELECT 1;\n")
            self.assertEqual(results.golden_events(os.path.join(root, "nexmark-q4")), "20000")
            self.assertEqual(results.golden_events(os.path.join(root, "nexmark-q23")), "50000")
            self.assertIsNone(results.golden_events(os.path.join(root, "nexmark-mixed")))
            self.assertIsNone(results.golden_events(os.path.join(root, "nexmark-none")))
            self.assertIsNone(results.golden_events(os.path.join(root, "nexmark-missing")))

    def test_repository_cases(self):
        # the committed Nexmark cases: all on 20,000 events but q23 (50,000)
        tests = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "queries", "tests")
        cases = sorted(d for d in os.listdir(tests) if d.startswith("nexmark-q"))
        self.assertGreater(len(cases), 20)
        for d in cases:
            want = "50000" if d == "nexmark-q23" else "20000"
            self.assertEqual(results.golden_events(os.path.join(tests, d)), want, d)


if __name__ == "__main__":
    unittest.main()
