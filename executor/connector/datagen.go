package connector

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/vector"
)

// The 'datagen' connector (SPEC 1) generates rows.
//
//   - 'number-of-rows' bounds the stream (absent: unbounded); 'rows-per-second'
//     paces it (absent: as fast as possible): row k is due k/rps seconds after the
//     job starts, on the Clock.
//   - 'seed' (default 0) seeds one random generator per column, so the same seed
//     gives the same rows, whatever the pace and the batch sizes.
//   - Per column, fields.<col>.kind is random (default) or sequence.
//     random: BIGINT uniform in [min, max] (default [0, 1000]; with only min,
//     max = min + 1000; with only max, min = min(0, max)); DOUBLE uniform in
//     [min, max) with the same defaults; VARCHAR 'length' (default 10) random
//     letters a-z; BOOLEAN true or false.
//     sequence: start (default 1), start+1, ... up to end (absent: no end); the
//     stream ends when a sequence column has given its end. VARCHAR sequences give
//     the numbers as text; BOOLEAN has none. For TIMESTAMP, min/max/start/end are
//     epoch milliseconds and a sequence steps 1 ms (from the clock at the job's
//     start when 'start' is absent).
//     values: a comma-separated list, read as the column's type; random picks
//     one per row, sequence cycles through them in order.
//   - Event time: a TIMESTAMP column, or the BIGINT column of WATERMARK FOR,
//     that is random with no min, max or values gets the row's time in epoch
//     milliseconds (UTC): for a paced stream the time the row is due (the clock
//     at the job's start + k/rps s), else the clock when its batch is made. Such a
//     column follows the clock, not the seed; give it 'kind'='sequence' for rows
//     that are the same on every run.

type genKind uint8

const (
	genRandom genKind = iota
	genSequence
	genTime // the row's time (see above)
)

// colGen generates one column.
type colGen struct {
	typ    catalog.Type
	kind   genKind
	rng    *rand.Rand
	imin   int64 // BIGINT/TIMESTAMP random bounds, inclusive
	imax   int64
	fmin   float64 // DOUBLE random bounds, [fmin, fmax)
	fmax   float64
	istart int64   // sequence start (BIGINT, TIMESTAMP, VARCHAR)
	fstart float64 // sequence start (DOUBLE)
	rows   int64   // rows a sequence has (start to end), -1 = no end
	length int     // VARCHAR random length
	// values to pick from, parsed to the column's type
	vals  int
	ivals []int64
	fvals []float64
	bvals []bool
	svals [][]byte
}

// OptionError is a bad option value found when a stream is declared
// (catalog.OptionError): Key is the option as the connector's spec spells it
// (fields.<column>.min), Msg the reason.
type OptionError = catalog.OptionError

func init() {
	Register(&catalog.ConnectorSpec{
		Name: "datagen", Doc: "generates rows; bounded when 'number-of-rows' is set",
		Options: []catalog.OptionSpec{
			{Name: "number-of-rows", Kind: catalog.OptInt, Doc: "rows to generate; absent = unbounded"},
			{Name: "rows-per-second", Kind: catalog.OptInt, Doc: "pace; absent = as fast as possible"},
			{Name: "seed", Kind: catalog.OptInt, Default: "0", Doc: "random seed; the same seed gives the same rows"},
			{Name: "fields.#.kind", Kind: catalog.OptEnum, Values: []string{"random", "sequence"}, Default: "random", Doc: "random or sequence"},
			{Name: "fields.#.min", Kind: catalog.OptNumber, Doc: "smallest random value"},
			{Name: "fields.#.max", Kind: catalog.OptNumber, Doc: "largest random value"},
			{Name: "fields.#.start", Kind: catalog.OptNumber, Doc: "first sequence value"},
			{Name: "fields.#.end", Kind: catalog.OptNumber, Doc: "last sequence value"},
			{Name: "fields.#.values", Kind: catalog.OptString, Doc: "comma-separated values to pick from"},
			{Name: "fields.#.length", Kind: catalog.OptInt, Doc: "length of random strings"},
		},
		Bounded: func(o map[string]string) bool { return o["number-of-rows"] != "" },
		// each open generates every row anew from 'seed' (a column that
		// follows the clock gets the clock's time of each open's row)
		Caps:     catalog.CapReread,
		Validate: CheckDatagen,
	}, &Driver{Open: func(ctx context.Context, st *catalog.Stream, env *Env) (Source, error) {
		return OpenDatagen(ctx, st, env.Clock)
	}})
}

// CheckDatagen validates the options of a datagen stream beyond their kinds
// (which catalog checks): bounds that fit the column's type and each other,
// options that fit the column's kind, 'values' readable as the column's type, a
// pace of at least one row per second. It returns an *OptionError.
func CheckDatagen(st *catalog.Stream) error {
	_, err := newGens(st)
	return err
}

// datagenConfig is a datagen stream's options, read.
type datagenConfig struct {
	limit int64 // -1 = unbounded
	rps   int64 // 0 = as fast as possible
	gens  []*colGen
}

func newGens(st *catalog.Stream) (*datagenConfig, error) {
	o := st.Options
	c := &datagenConfig{limit: -1}
	if v, ok := o["number-of-rows"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, &OptionError{Key: "number-of-rows", Msg: "'" + v + "' is not a row count"}
		}
		c.limit = n
	}
	if v, ok := o["rows-per-second"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > 1_000_000_000 {
			return nil, &OptionError{Key: "rows-per-second", Msg: "'" + v + "' must be from 1 to 1000000000 (leave it out for as fast as possible)"}
		}
		c.rps = n
	}
	seed, err := strconv.ParseUint(o["seed"], 10, 64)
	if err != nil && o["seed"] != "" {
		return nil, &OptionError{Key: "seed", Msg: "'" + o["seed"] + "' is not a non-negative integer"}
	}
	for i, col := range st.Columns {
		g, err := newGen(st, i, col, seed)
		if err != nil {
			return nil, err
		}
		if g.rows >= 0 && (c.limit < 0 || g.rows < c.limit) {
			c.limit = g.rows
		}
		c.gens = append(c.gens, g)
	}
	return c, nil
}

func newGen(st *catalog.Stream, i int, col catalog.Column, seed uint64) (*colGen, error) {
	key := func(opt string) string { return "fields." + col.Name + "." + opt }
	opt := func(name string) (string, bool) {
		v, ok := st.Options[key(name)]
		return strings.TrimSpace(v), ok
	}
	bad := func(name, format string, args ...any) error {
		return &OptionError{Key: key(name), Msg: fmt.Sprintf(format, args...)}
	}
	t := col.Type
	g := &colGen{typ: t, rng: rand.New(rand.NewPCG(seed, uint64(i)+0x9e3779b97f4a7c15)), rows: -1}
	kind, _ := opt("kind")
	if kind == "sequence" {
		g.kind = genSequence
	}
	minS, hasMin := opt("min")
	maxS, hasMax := opt("max")
	startS, hasStart := opt("start")
	endS, hasEnd := opt("end")
	lenS, hasLen := opt("length")
	valsS, hasVals := st.Options[key("values")]
	for _, x := range []struct {
		name string
		has  bool
	}{{"min", hasMin}, {"max", hasMax}, {"start", hasStart}, {"end", hasEnd}, {"length", hasLen}} {
		if !x.has {
			continue
		}
		switch {
		case hasVals:
			return nil, bad(x.name, "cannot be combined with 'fields.%s.values' (the values are the column's whole range)", col.Name)
		case t == catalog.Boolean:
			return nil, bad(x.name, "column %s is BOOLEAN: it takes only 'kind' and 'values'", col.Name)
		case x.name == "length" && (t != catalog.Varchar || g.kind == genSequence):
			return nil, bad(x.name, "'length' applies to a random VARCHAR column only")
		case (x.name == "min" || x.name == "max") && g.kind == genSequence:
			return nil, bad(x.name, "a sequence goes from 'start' to 'end'; 'min' and 'max' bound random values")
		case (x.name == "start" || x.name == "end") && g.kind == genRandom:
			return nil, bad(x.name, "'start' and 'end' bound a sequence: add 'fields.%s.kind'='sequence' (random values use 'min' and 'max')", col.Name)
		case (x.name == "min" || x.name == "max") && t == catalog.Varchar:
			return nil, bad(x.name, "column %s is VARCHAR: random strings take 'length'", col.Name)
		}
	}
	if g.kind == genSequence && t == catalog.Boolean && !hasVals {
		return nil, bad("kind", "a BOOLEAN column has no sequence; use 'random' or 'values'")
	}
	integral := t == catalog.BigInt || t == catalog.Timestamp || t == catalog.Varchar
	num := func(name, s string) (int64, float64, error) {
		if integral {
			n, ok := textconv.ParseInt([]byte(s))
			if !ok {
				return 0, 0, bad(name, "'%s' is not a whole number (column %s is %s)", s, col.Name, t)
			}
			return n, float64(n), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, 0, bad(name, "'%s' is not a finite number", s)
		}
		return 0, f, nil
	}
	switch {
	case hasVals:
		if err := g.parseValues(valsS); err != nil {
			return nil, bad("values", "%v", err)
		}
	case g.kind == genSequence:
		g.istart, g.fstart = 1, 1
		if hasStart {
			var err error
			if g.istart, g.fstart, err = num("start", startS); err != nil {
				return nil, err
			}
		} else if t == catalog.Timestamp {
			g.istart = math.MinInt64 // the clock at the job's start
		}
		if hasEnd {
			ie, fe, err := num("end", endS)
			if err != nil {
				return nil, err
			}
			if !hasStart && t == catalog.Timestamp {
				return nil, bad("end", "a TIMESTAMP sequence with an end needs a 'start' too (epoch milliseconds)")
			}
			if fe < g.fstart || integral && ie < g.istart {
				return nil, bad("end", "%s is below 'start' %s", endS, startS)
			}
			if integral {
				g.rows = ie - g.istart + 1
				if g.rows <= 0 { // overflow: a range wider than int64
					g.rows = math.MaxInt64
				}
			} else {
				g.rows = int64(math.Min(math.Floor(fe-g.fstart)+1, math.MaxInt64/2))
			}
		}
	default: // random
		timeLike := t == catalog.Timestamp || t == catalog.BigInt && st.EventTime == i && st.Watermark != nil
		if timeLike && !hasMin && !hasMax {
			g.kind = genTime
			break
		}
		switch t {
		case catalog.BigInt, catalog.Timestamp:
			g.imin, g.imax = 0, 1000
			var err error
			if hasMin {
				if g.imin, _, err = num("min", minS); err != nil {
					return nil, err
				}
				g.imax = g.imin + 1000
				if g.imax < g.imin {
					g.imax = math.MaxInt64
				}
			}
			if hasMax {
				if g.imax, _, err = num("max", maxS); err != nil {
					return nil, err
				}
				if !hasMin {
					g.imin = min(0, g.imax)
				}
			}
			if g.imin > g.imax {
				return nil, bad("max", "%d is below 'min' %d", g.imax, g.imin)
			}
		case catalog.Double:
			g.fmin, g.fmax = 0, 1000
			var err error
			if hasMin {
				if _, g.fmin, err = num("min", minS); err != nil {
					return nil, err
				}
				g.fmax = g.fmin + 1000
			}
			if hasMax {
				if _, g.fmax, err = num("max", maxS); err != nil {
					return nil, err
				}
				if !hasMin {
					g.fmin = min(0, g.fmax)
				}
			}
			if g.fmin > g.fmax {
				return nil, bad("max", "%s is below 'min' %s", maxS, minS)
			}
		case catalog.Varchar:
			g.length = 10
			if hasLen {
				n, err := strconv.Atoi(lenS)
				if err != nil || n < 0 || n > 1<<20 {
					return nil, bad("length", "'%s' must be from 0 to 1048576", lenS)
				}
				g.length = n
			}
		}
	}
	return g, nil
}

// parseValues reads a 'values' list: comma-separated, each read as the column's
// type (spaces around non-VARCHAR values are trimmed, SPEC 1).
func (g *colGen) parseValues(list string) error {
	for _, s := range strings.Split(list, ",") {
		b := []byte(s)
		ok := true
		switch g.typ {
		case catalog.BigInt:
			var v int64
			v, ok = textconv.ParseInt(b)
			g.ivals = append(g.ivals, v)
		case catalog.Timestamp:
			var v int64
			v, ok = textconv.ParseTimestamp(b)
			g.ivals = append(g.ivals, v)
		case catalog.Double:
			var v float64
			v, ok = textconv.ParseDouble(b)
			g.fvals = append(g.fvals, v)
		case catalog.Boolean:
			var v bool
			v, ok = textconv.ParseBool(b)
			g.bvals = append(g.bvals, v)
		default:
			g.svals = append(g.svals, b)
		}
		if !ok {
			return fmt.Errorf("'%s' is not a %s value", s, g.typ)
		}
		g.vals++
	}
	return nil
}

// datagen is the source of a datagen stream.
type datagen struct {
	ctx     context.Context
	cfg     *datagenConfig
	clock   Clock
	start   time.Time
	startMs int64
	made    int64
	dirty   bool // rows were returned since the last ErrWaiting
}

// OpenDatagen opens the source of a datagen stream; clock paces it (nil: the
// wall clock).
func OpenDatagen(ctx context.Context, st *catalog.Stream, clock Clock) (Source, error) {
	cfg, err := newGens(st)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", st.Name, err)
	}
	if clock == nil {
		clock = WallClock{}
	}
	s := &datagen{ctx: ctx, cfg: cfg, clock: clock, start: clock.Now()}
	s.startMs = s.start.UnixMilli()
	for _, g := range cfg.gens {
		if g.kind == genSequence && g.istart == math.MinInt64 {
			g.istart = s.startMs
		}
	}
	return s, nil
}

// paced waits until row made of a stream paced at rps rows per second from
// start is due, and returns how many rows are due then (more than made). When
// it has to wait and rows were returned since the last wait (*dirty), it
// returns ErrWaiting first (and clears *dirty), so the job flushes; it returns
// ctx's error when ctx ends while it sleeps.
func paced(ctx context.Context, clock Clock, start time.Time, made, rps int64, dirty *bool) (int64, error) {
	for {
		now := clock.Now()
		if due := dueRows(now.Sub(start), rps); due > made {
			return due, nil
		}
		if *dirty {
			*dirty = false
			return 0, ErrWaiting
		}
		if err := clock.Sleep(ctx, max(start.Add(rowOffset(made, rps)).Sub(now), time.Nanosecond)); err != nil {
			return 0, err
		}
	}
}

// rowOffset is when row k is due after the start, at rps rows per second: k/rps
// seconds, rounded up to the nanosecond so that dueRows(rowOffset(k)) > k.
func rowOffset(k, rps int64) time.Duration {
	return time.Duration(k/rps)*time.Second + time.Duration(((k%rps)*int64(time.Second)+rps-1)/rps)
}

// dueRows is how many rows are due elapsed after the start (row 0 at once).
func dueRows(elapsed time.Duration, rps int64) int64 {
	if elapsed < 0 {
		return 0
	}
	return int64(elapsed/time.Second)*rps + int64(elapsed%time.Second)*rps/int64(time.Second) + 1
}

func (s *datagen) Next(b *vector.Batch, bad *[]BadRow) error {
	limit := s.cfg.limit
	if limit >= 0 && s.made >= limit {
		return io.EOF
	}
	n := int64(vector.Cap)
	if limit >= 0 {
		n = min(n, limit-s.made)
	}
	if rps := s.cfg.rps; rps > 0 {
		due, err := paced(s.ctx, s.clock, s.start, s.made, rps, &s.dirty)
		if err != nil {
			return err
		}
		n = min(n, due-s.made)
	}
	s.fill(b, int(n))
	s.made += n
	s.dirty = true
	return nil
}

// fill generates rows s.made .. s.made+n-1 into b.
func (s *datagen) fill(b *vector.Batch, n int) {
	b.Reset()
	var nowMs int64
	haveNow := false
	for c, g := range s.cfg.gens {
		v := b.Cols[c]
		for i := 0; i < n; i++ {
			k := s.made + int64(i) // the row's index in the stream
			v.Null[i] = false
			if g.vals > 0 {
				var j int
				if g.kind == genSequence {
					j = int(k % int64(g.vals))
				} else {
					j = g.rng.IntN(g.vals)
				}
				switch g.typ {
				case catalog.BigInt, catalog.Timestamp:
					v.I[i] = g.ivals[j]
				case catalog.Double:
					v.F[i] = g.fvals[j]
				case catalog.Boolean:
					v.B[i] = g.bvals[j]
				default:
					v.S[i] = g.svals[j]
				}
				continue
			}
			switch g.kind {
			case genTime:
				if s.cfg.rps > 0 {
					v.I[i] = s.startMs + rowOffset(k, s.cfg.rps).Milliseconds()
				} else {
					if !haveNow {
						nowMs, haveNow = s.clock.Now().UnixMilli(), true
					}
					v.I[i] = nowMs
				}
			case genSequence:
				switch g.typ {
				case catalog.Double:
					v.F[i] = g.fstart + float64(k)
				case catalog.Varchar:
					start := len(v.Arena)
					v.Arena = strconv.AppendInt(v.Arena, g.istart+k, 10)
					v.S[i] = v.Arena[start:len(v.Arena):len(v.Arena)]
				default:
					v.I[i] = g.istart + k
				}
			default:
				switch g.typ {
				case catalog.BigInt, catalog.Timestamp:
					span := uint64(g.imax) - uint64(g.imin)
					if span == math.MaxUint64 {
						v.I[i] = int64(g.rng.Uint64())
					} else {
						v.I[i] = g.imin + int64(g.rng.Uint64N(span+1))
					}
				case catalog.Double:
					v.F[i] = g.fmin + g.rng.Float64()*(g.fmax-g.fmin)
				case catalog.Boolean:
					v.B[i] = g.rng.IntN(2) == 1
				default:
					start := len(v.Arena)
					for range g.length {
						v.Arena = append(v.Arena, byte('a'+g.rng.IntN(26)))
					}
					v.S[i] = v.Arena[start:len(v.Arena):len(v.Arena)]
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		b.Pos[i] = s.made + int64(i) + 1
	}
	b.N = n
}

func (s *datagen) Position(line int64) string { return rowNumber(line) }

func (s *datagen) Progress() (int64, int64) { return 0, 0 }

func (s *datagen) Close() error { return nil }
