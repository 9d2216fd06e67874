package tests

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// TestLookupJoinUnreadColumns: a lookup join (SPEC 2.7, a bounded right
// side) whose right side has VARCHAR columns the query does not read (the
// join keeps only the columns its readers read) panicked while laying out
// its right side (the VARCHAR sizes read a column it did not keep) when the
// left side was a subquery. Each shape, with a dense integer key (ids) and
// a sparse one (a hash table), a VARCHAR key, with some right columns read
// or none, is compared with a nested loop written here.
func TestLookupJoinUnreadColumns(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, sparse := range []bool{false, true} {
		type row struct {
			id   int64
			name string
			tag  string
		}
		key := func(i int) int64 {
			if sparse {
				return int64(i) * 1000003
			}
			return int64(i)
		}
		var left, right []row
		var lj, rc []string
		for i := 0; i < 40; i++ {
			r := row{key(rng.Intn(30)), fmt.Sprintf("l%d", i), fmt.Sprintf("t%d", rng.Intn(5))}
			left = append(left, r)
			lj = append(lj, fmt.Sprintf(`{"id":%d,"name":"%s","tag":"%s"}`, r.id, r.name, r.tag))
		}
		for i := 0; i < 20; i++ {
			r := row{key(rng.Intn(30)), fmt.Sprintf("r%d", i), fmt.Sprintf("t%d", rng.Intn(5))}
			right = append(right, r)
			rc = append(rc, fmt.Sprintf("%d,%s,%s", r.id, r.name, r.tag))
		}
		files := map[string]string{"l.json": strings.Join(lj, "\n") + "\n", "r.csv": strings.Join(rc, "\n") + "\n"}
		ddl := "CREATE STREAM l (id BIGINT, name VARCHAR, tag VARCHAR) WITH ('connector'='file', 'path'='l.json', 'format'='json');\n" +
			"CREATE STREAM r (id BIGINT, name VARCHAR, tag VARCHAR) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');\n"
		cases := []struct {
			query string
			want  func(l, r row) (string, bool)
		}{
			{"SELECT q.id, q.name FROM (SELECT id, name FROM l) q JOIN r ON q.id = r.id;",
				func(l, r row) (string, bool) { return fmt.Sprintf("%d,%s", l.id, l.name), l.id == r.id }},
			{"SELECT l.name FROM l JOIN r ON l.id = r.id;",
				func(l, r row) (string, bool) { return l.name, l.id == r.id }},
			{"SELECT q.name, r.tag FROM (SELECT id, name FROM l WHERE name <> '') q JOIN r ON q.id = r.id;",
				func(l, r row) (string, bool) { return l.name + "," + r.tag, l.id == r.id }},
			{"SELECT q.name FROM (SELECT tag, name FROM l) q JOIN r ON q.tag = r.tag;",
				func(l, r row) (string, bool) { return l.name, l.tag == r.tag }},
		}
		for _, c := range cases {
			var want []string
			for _, l := range left {
				for _, r := range right {
					if s, ok := c.want(l, r); ok {
						want = append(want, s)
					}
				}
			}
			out, errs, code := runSQL(t, files, ddl+c.query+"\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("sparse %v, %s: exit %d\n%s", sparse, c.query, code, errs)
			}
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")[1:]
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("sparse %v, %s:\n got %q\nwant %q", sparse, c.query, got, want)
			}
		}
	}
}
