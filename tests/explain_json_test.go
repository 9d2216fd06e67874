package tests

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// TestExplainJSONIsOneDocument: EXPLAIN (FORMAT JSON) gives one JSON document
// (SPEC 4, "Finding out why") in every machine-readable output format: in
// json the "plan" field of its one object, in csv and tsv the one field of its
// one row, so `streamql --format json -e 'EXPLAIN (FORMAT JSON) ...' | jq -r
// .plan` reads it back. The notes EXPLAIN prints after its tree (a csv
// header's mapping, type conversions) are its "notes" array, not lines after
// the document. Before, each line of the document was a row of its own and the
// notes followed it, so no format held one document.
func TestExplainJSONIsOneDocument(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.csv"), []byte("k,ts\na,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "o.csv"), []byte("a,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ddl := "CREATE STREAM h (k VARCHAR, ts BIGINT) WITH ('connector'='file','path'='" + filepath.Join(dir, "h.csv") + "','format'='csv','csv.header'='true');\n" +
		"CREATE STREAM o (k VARCHAR, n BIGINT) WITH ('connector'='file','path'='" + filepath.Join(dir, "o.csv") + "','format'='csv');\n"
	for _, q := range []struct {
		sql   string
		notes bool
	}{
		{"EXPLAIN (FORMAT JSON) SELECT 1;", false},
		{"EXPLAIN (FORMAT JSON) SELECT * FROM h;", true},
		{"EXPLAIN (FORMAT JSON) SELECT o.k, COUNT(*) FROM o LEFT JOIN h ON o.k = h.k GROUP BY o.k;", true},
	} {
		for _, format := range []string{"json", "csv", "tsv"} {
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"--format", format, "-e", ddl + q.sql}, strings.NewReader(""), &out, &errb)
			var doc string
			switch format {
			case "json":
				var row map[string]string
				if err := json.Unmarshal(out.Bytes(), &row); err != nil {
					t.Errorf("%s --format json: stdout is not one object: %v\n%s", q.sql, err, out.String())
					continue
				}
				doc = row["plan"]
			default:
				r := csv.NewReader(&out)
				if format == "tsv" {
					r.Comma = '\t'
				}
				recs, err := r.ReadAll()
				if err != nil || len(recs) != 2 || len(recs[1]) != 1 || recs[0][0] != "plan" {
					t.Errorf("%s --format %s: want a header and one row of one field, got %q (%v)", q.sql, format, recs, err)
					continue
				}
				doc = recs[1][0]
			}
			var tree struct {
				Nodes []struct{ Kind string }
				Notes []string
			}
			if err := json.Unmarshal([]byte(doc), &tree); err != nil || code != 0 || len(tree.Nodes) == 0 || (len(tree.Notes) > 0) != q.notes {
				t.Errorf("%s --format %s: exit %d, stderr %s; want one JSON document with nodes (and notes: %v), got %v\n%s", q.sql, format, code, errb.String(), q.notes, err, doc)
			}
		}
	}
}
