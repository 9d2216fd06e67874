package connector

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
)

// fakeClock is a Clock whose Sleep only moves its time forward, so pacing is
// tested without sleeping.
type fakeClock struct {
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

var t0 = time.Date(2021, 1, 17, 12, 48, 29, 0, time.UTC)

var orderCols = []catalog.Column{
	{Name: "product", Type: catalog.Varchar},
	{Name: "qty", Type: catalog.BigInt},
	{Name: "price", Type: catalog.Double},
	{Name: "code", Type: catalog.Varchar},
	{Name: "paid", Type: catalog.Boolean},
}

// readAll reads a bounded source to its end, skipping ErrWaiting.
func readAll(t *testing.T, src Source, st *catalog.Stream) []string {
	t.Helper()
	r := newReader(t, src, st)
	var all []string
	for {
		rows, err := r.next()
		if err == io.EOF {
			return all
		}
		if errors.Is(err, ErrWaiting) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rows...)
	}
}

func gen(t *testing.T, st *catalog.Stream, clock Clock) []string {
	t.Helper()
	src, err := OpenDatagen(context.Background(), st, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	return readAll(t, src, st)
}

func TestDatagenSeedDeterminism(t *testing.T) {
	opts := func(seed string) *catalog.Stream {
		return newStream(t, orderCols, "datagen", "number-of-rows", "3000", "seed", seed,
			"fields.product.values", "a苹果,b梨,c西瓜,d葡萄,e火龙果",
			"fields.qty.min", "1", "fields.qty.max", "10",
			"fields.code.length", "6")
	}
	a := gen(t, opts("42"), &fakeClock{now: t0})
	b := gen(t, opts("42"), &fakeClock{now: t0.Add(time.Hour)})
	c := gen(t, opts("43"), &fakeClock{now: t0})
	if len(a) != 3000 {
		t.Fatalf("%d rows, want 3000", len(a))
	}
	if !slices.Equal(a, b) {
		t.Error("the same seed gave different rows")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds gave the same rows")
	}
	// the same rows whatever the pace (batch sizes differ)
	paced := newStream(t, orderCols, "datagen", "number-of-rows", "3000", "seed", "42", "rows-per-second", "7",
		"fields.product.values", "a苹果,b梨,c西瓜,d葡萄,e火龙果",
		"fields.qty.min", "1", "fields.qty.max", "10",
		"fields.code.length", "6")
	if p := gen(t, paced, &fakeClock{now: t0}); !slices.Equal(a, p) {
		t.Error("pacing changed the rows")
	}
	products := map[string]bool{}
	for _, row := range a {
		f := strings.Split(row, ",")
		products[f[0]] = true
		if q := f[1]; len(q) > 2 || q == "0" || len(q) == 2 && q != "10" {
			t.Fatalf("qty %s out of [1, 10]", q)
		}
		if len(f[3]) != 6 {
			t.Fatalf("code %q is not 6 letters", f[3])
		}
	}
	if len(products) != 5 {
		t.Errorf("picked %d of the 5 products", len(products))
	}
}

func TestDatagenKinds(t *testing.T) {
	cols := []catalog.Column{
		{Name: "id", Type: catalog.BigInt},
		{Name: "name", Type: catalog.Varchar},
		{Name: "x", Type: catalog.Double},
		{Name: "ts", Type: catalog.Timestamp},
		{Name: "c", Type: catalog.BigInt},
	}
	st := newStream(t, cols, "datagen",
		"fields.id.kind", "sequence", "fields.id.start", "10", "fields.id.end", "13",
		"fields.name.kind", "sequence", "fields.name.start", "7",
		"fields.x.kind", "sequence", "fields.x.start", "0.5",
		"fields.ts.kind", "sequence", "fields.ts.start", "1000",
		"fields.c.kind", "sequence", "fields.c.values", "1,2,3")
	got := gen(t, st, &fakeClock{now: t0})
	want := []string{
		"10,7,0.5,1970-01-01 00:00:01.000,1",
		"11,8,1.5,1970-01-01 00:00:01.001,2",
		"12,9,2.5,1970-01-01 00:00:01.002,3",
		"13,10,3.5,1970-01-01 00:00:01.003,1",
	}
	if !slices.Equal(got, want) { // the stream ends with the sequence of id
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	src, _ := OpenDatagen(context.Background(), st, &fakeClock{now: t0})
	if p := src.Position(4); p != "4" {
		t.Errorf("position %q", p)
	}
}

// TestDatagenPacing checks rows-per-second with a fake clock: row k is due k/rps
// seconds after the start, the source says it waits (so the job flushes) before
// it sleeps, and an event-time column gets each row's due time.
func TestDatagenPacing(t *testing.T) {
	cols := []catalog.Column{{Name: "n", Type: catalog.BigInt}, {Name: "ts", Type: catalog.Timestamp}}
	st := newStream(t, cols, "datagen", "rows-per-second", "2", "number-of-rows", "4",
		"fields.n.kind", "sequence")
	clock := &fakeClock{now: t0}
	src, err := OpenDatagen(context.Background(), st, clock)
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(t, src, st)
	var trace []string
	for {
		rows, err := r.next()
		if err == io.EOF {
			break
		}
		switch {
		case errors.Is(err, ErrWaiting):
			trace = append(trace, "wait")
		case err != nil:
			t.Fatal(err)
		default:
			trace = append(trace, strings.Join(rows, ";"))
		}
	}
	want := []string{
		"1,2021-01-17 12:48:29.000", "wait",
		"2,2021-01-17 12:48:29.500", "wait",
		"3,2021-01-17 12:48:30.000", "wait",
		"4,2021-01-17 12:48:30.500",
	}
	if !slices.Equal(trace, want) {
		t.Errorf("trace\n%s\nwant\n%s", strings.Join(trace, "\n"), strings.Join(want, "\n"))
	}
	if got := clock.now.Sub(t0); got != 1500*time.Millisecond {
		t.Errorf("slept %v in all (%v), want 1.5s", got, clock.sleeps)
	}

	// rows that fell due meanwhile (a slow sink) come out together, without sleeping
	st = newStream(t, cols, "datagen", "rows-per-second", "1000", "fields.n.kind", "sequence")
	clock = &fakeClock{now: t0}
	src, _ = OpenDatagen(context.Background(), st, clock)
	r = newReader(t, src, st)
	if rows, _ := r.next(); len(rows) != 1 {
		t.Fatalf("first call gave %d rows", len(rows))
	}
	clock.now = clock.now.Add(2500 * time.Microsecond)
	if rows, _ := r.next(); len(rows) != 2 || rows[1] != "3,2021-01-17 12:48:29.002" {
		t.Fatalf("got %q, want rows 2 and 3", rows)
	}
	clock.now = clock.now.Add(10 * time.Second)
	if rows, _ := r.next(); len(rows) != 1024 {
		t.Fatalf("got %d rows, want a full batch", len(rows))
	}
	if len(clock.sleeps) != 0 {
		t.Errorf("slept %v", clock.sleeps)
	}

	// cancelling stops a paced source
	ctx, cancel := context.WithCancel(context.Background())
	src, _ = OpenDatagen(ctx, st, &fakeClock{now: t0})
	r = newReader(t, src, st)
	r.next()
	cancel()
	for {
		_, err := r.next()
		if errors.Is(err, ErrWaiting) {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v after cancel", err)
		}
		break
	}
}

// TestDatagenEventTime: the WATERMARK FOR column without options gets the row's
// time; unpaced, the clock's when the batch is made.
func TestDatagenEventTime(t *testing.T) {
	cols := []catalog.Column{{Name: "w", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}}
	st := newStream(t, cols, "datagen", "number-of-rows", "2", "fields.w.values", "x")
	st.EventTime, st.Watermark = 1, &catalog.Watermark{}
	got := gen(t, st, &fakeClock{now: t0})
	ms := t0.UnixMilli()
	want := []string{"x," + strconv.FormatInt(ms, 10), "x," + strconv.FormatInt(ms, 10)}
	if !slices.Equal(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestDatagenOptionErrors(t *testing.T) {
	cols := []catalog.Column{{Name: "n", Type: catalog.BigInt}, {Name: "s", Type: catalog.Varchar}, {Name: "b", Type: catalog.Boolean}}
	cases := []struct {
		opts []string
		key  string
	}{
		{[]string{"fields.n.min", "5", "fields.n.max", "1"}, "fields.n.max"},
		{[]string{"fields.n.min", "1.5"}, "fields.n.min"},
		{[]string{"fields.n.start", "1"}, "fields.n.start"},
		{[]string{"fields.n.kind", "sequence", "fields.n.min", "1"}, "fields.n.min"},
		{[]string{"fields.n.kind", "sequence", "fields.n.start", "5", "fields.n.end", "1"}, "fields.n.end"},
		{[]string{"fields.n.values", "1,x"}, "fields.n.values"},
		{[]string{"fields.n.values", "1", "fields.n.min", "0"}, "fields.n.min"},
		{[]string{"fields.s.min", "1"}, "fields.s.min"},
		{[]string{"fields.n.length", "3"}, "fields.n.length"},
		{[]string{"fields.b.kind", "sequence"}, "fields.b.kind"},
		{[]string{"rows-per-second", "0"}, "rows-per-second"},
	}
	for _, c := range cases {
		st := newStream(t, cols, "datagen", c.opts...)
		err := CheckDatagen(st)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Key != c.key {
			t.Errorf("%v: got %v, want an error on %s", c.opts, err, c.key)
		}
	}
	ok := newStream(t, cols, "datagen", "fields.b.values", "true, FALSE", "fields.n.max", "-5", "fields.s.length", "0")
	if err := CheckDatagen(ok); err != nil {
		t.Error(err)
	}
	for _, row := range gen(t, newStream(t, cols, "datagen", "number-of-rows", "50", "fields.n.max", "-5", "fields.s.length", "0", "fields.b.values", "true, FALSE"), nil) {
		f := strings.Split(row, ",")
		if f[0] != "-5" || f[1] != "" {
			t.Fatalf("row %q: n must be -5 (max -5, min defaults to it) and s empty (length 0)", row)
		}
	}
}

// TestDueRows: row k falls due exactly at rowOffset(k), whatever the rate.
func TestDueRows(t *testing.T) {
	for _, rps := range []int64{1, 3, 7, 1000, 999_999_937, 1_000_000_000} {
		for _, k := range []int64{0, 1, 2, 6, 7, 8, 999, 123456789, 1 << 32} { // up to 136 years at 1 row/s: time.Duration holds 292 {
			off := rowOffset(k, rps)
			if got := dueRows(off, rps); got != k+1 {
				t.Errorf("rps %d: dueRows(rowOffset(%d)) = %d", rps, k, got)
			}
			if k > 0 {
				if got := dueRows(off-1, rps); got != k {
					t.Errorf("rps %d: dueRows(rowOffset(%d)-1ns) = %d", rps, k, got)
				}
			}
		}
	}
}
