package streamql_test

import (
	"context"
	"fmt"
	"strings"

	"streamql"
)

// printRows is an OnRows callback that prints each row with its output's name.
func printRows(out streamql.Output, rows *streamql.Rows) error {
	for r := 0; r < rows.Len(); r++ {
		vals := make([]string, len(out.Columns))
		for c := range out.Columns {
			vals[c] = fmt.Sprint(rows.Value(c, r))
		}
		fmt.Printf("%s: %s\n", out.Name, strings.Join(vals, ", "))
	}
	return nil
}

// The sensor split of SPEC 2.1: one scan of a file, cold readings to the side
// output 'low-tmp', hot ones to 'high-tmp', the others to the main query.
func ExampleSession_split() {
	s, err := streamql.Open(streamql.Options{BaseDir: "testdata", OnRows: printRows})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = s.Exec(context.Background(), `
CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');
SELECT deviceNo, temperature INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10;
SELECT deviceNo, temperature INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;`)
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// high-tmp: s8, 84.3
	// main: s5, 1610035371758, 38.8
	// low-tmp: s7, 9.79
	// main: s1, 1610035543127, 10.2
	// high-tmp: s4, 71.1
	// low-tmp: s3, 0.59
}

// Rows pushed from Go code into a stream declared WITH ('connector'='go'): the
// job runs in one goroutine while another pushes, and ends when the stream is
// closed.
func ExampleSession_Push() {
	ctx := context.Background()
	s, err := streamql.Open(streamql.Options{OnRows: printRows})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Exec(ctx, `CREATE STREAM clicks (user_id BIGINT, url VARCHAR, ms BIGINT) WITH ('connector' = 'go')`); err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan error, 1)
	go func() {
		done <- s.Exec(ctx, `
SELECT user_id, url INTO SIDE 'admin' FROM clicks WHERE url LIKE '/admin%';
SELECT url, ms FROM clicks WHERE ms >= 100;`)
	}()
	clicks := []struct {
		user int64
		url  string
		ms   int64
	}{{1, "/home", 120}, {2, "/admin/users", 30}, {3, "/cart", 40}, {1, "/pay", 300}}
	for _, c := range clicks {
		if err := s.Push(ctx, "clicks", c.user, c.url, c.ms); err != nil { // blocks while the job is behind
			fmt.Println(err)
		}
	}
	if err := s.CloseStream("clicks"); err != nil {
		fmt.Println(err)
	}
	if err := <-done; err != nil {
		fmt.Println(err)
	}
	// Output:
	// main: /home, 120
	// admin: 2, /admin/users
	// main: /pay, 300
}
