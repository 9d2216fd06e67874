package streamql_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"streamql"
)

// A Go function registered as a SQL function (SPEC 2.10): typed arguments and
// result, checked at planning; a NULL argument for a value parameter gives
// NULL without a call.
func ExampleSession_RegisterFunc() {
	s, err := streamql.Open(streamql.Options{OnRows: printRows})
	if err != nil {
		fmt.Println(err)
		return
	}
	countChar := func(s, c string) int64 { return int64(strings.Count(s, c)) }
	if err := s.RegisterFunc("count_char", countChar); err != nil {
		fmt.Println(err)
		return
	}
	err = s.Exec(context.Background(), `
CREATE STREAM words (w VARCHAR) WITH ('connector' = 'values');
INSERT INTO words VALUES ('banana'), ('kiwi'), (NULL);
SELECT w, count_char(w, 'a') AS a FROM words;`)
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// main: banana, 3
	// main: kiwi, 0
	// main: <nil>, <nil>
}

// TestRegisterFuncErrors: a wrong argument type is a planning error with a
// caret under the argument that names the signature; a bad Go func, a
// built-in name and a second registration are refused.
func TestRegisterFuncErrors(t *testing.T) {
	s, err := streamql.Open(streamql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterFunc("twice", func(x int64) int64 { return 2 * x }); err != nil {
		t.Fatal(err)
	}
	err = s.Exec(context.Background(), "CREATE STREAM n (x BIGINT, s VARCHAR) WITH ('connector' = 'values');\nSELECT twice(s) FROM n;")
	var se *streamql.Error
	if !errors.As(err, &se) || se.Kind != streamql.KindPlanning {
		t.Fatalf("want a planning error, got %v", err)
	}
	if !strings.Contains(se.Msg, "TWICE does not take s (VARCHAR) as argument 1; it takes TWICE(BIGINT) → BIGINT") || se.Pos.Line != 2 || se.Pos.Column != 14 {
		t.Errorf("got %q at %+v", se.Msg, se.Pos)
	}
	for name, fn := range map[string]any{"bad_arg": func(x int) int64 { return 0 }, "bad_res": func() []int { return nil }, "upper": func(s string) string { return s }, "twice": func(x int64) int64 { return x }, "not_func": 3} {
		if err := s.RegisterFunc(name, fn); err == nil {
			t.Errorf("RegisterFunc(%s) was accepted", name)
		}
	}
}

// TestRegisterFuncNullsAndErrors: pointer parameters receive nil for NULL, a
// nil pointer result is NULL, and a Go error sends the row to errors with the
// function's name while the job goes on.
func TestRegisterFuncNullsAndErrors(t *testing.T) {
	var got []string
	s, err := streamql.Open(streamql.Options{OnRows: collectLines(&got)})
	if err != nil {
		t.Fatal(err)
	}
	orZero := func(x *int64) *int64 {
		if x == nil {
			z := int64(-1)
			return &z
		}
		if *x == 7 {
			return nil
		}
		return x
	}
	inv := func(x float64) (float64, error) {
		if x == 0 {
			return 0, errors.New("division by zero")
		}
		return 1 / x, nil
	}
	if err := s.RegisterFunc("or_zero", orZero); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterFunc("inv", inv); err != nil {
		t.Fatal(err)
	}
	err = s.Exec(context.Background(), `
CREATE STREAM n (x BIGINT) WITH ('connector' = 'values');
INSERT INTO n VALUES (2), (NULL), (7), (0);
SELECT or_zero(x), inv(x) FROM n;`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"main: 2, 0.5", "main: -1, <nil>", "main: <nil>, 0.14285714285714285", "main: 0, <nil>", "errors: n, 4, 0, function INV: division by zero"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
