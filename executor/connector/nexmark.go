package connector

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
)

// The 'nexmark' connector (SPEC 1) generates the Nexmark benchmark's events
// (nexmark_model.go has the model): 'table' = person, auction or bid chooses
// which of the sequence's events the stream holds, as rows of the table's
// columns (any of them, in any order, each with the table's type).
//
//   - 'events.num' is the number of events of the sequence (all three kinds;
//     absent or 0 = unbounded, Flink's 0): a bid stream over 50,000 events has
//     about 46,000 rows with the default proportions.
//   - 'first-event.rate' (events/s) spaces event times (10⁶/rate µs per event
//     number; absent: Flink's default 10,000/s) and paces the stream: event k is
//     due k/rate s after the job starts, on the Clock. Absent, the stream runs
//     as fast as it can. 'next-event.rate' is accepted for Flink's DDL and, as
//     in Flink's generator (GeneratorConfig uses only the first rate), changes
//     nothing.
//   - 'person.proportion', 'auction.proportion', 'bid.proportion' (1, 3, 46):
//     of each P+A+B consecutive event ids, P are persons, then A auctions,
//     then B bids.
//   - 'seed' (0) seeds the random values; the same options give the same rows.
//   - 'out-of-order.group-size' (1, NexmarkConfiguration's outOfOrderGroupSize;
//     streamql's addition, Flink's table source does not expose it) permutes
//     event numbers within groups of that many events, so event times are out
//     of order by less than a group.
//
// Late rows under Nexmark's watermark (dateTime - INTERVAL '4' SECOND): with
// the default group size 1 event times never decrease, so no row is ever late
// (Flink's generator, with its default, gives none either). With groups of G
// events at R events/s a row is at most (G-1)/R s early, so rows are late only
// when that exceeds 4 s: at G = 10,000 and R = 1,000/s about 60% of the bids
// are late (TestNexmarkLateRows counts them against its own permutation).
//
// Rows are written straight into the batch's vectors: fixed strings and the
// 'extra' padding point at shared tables, the rest goes to the vectors'
// arenas, so a batch allocates nothing once the arenas have grown.

// nexmarkColumns holds each Nexmark table's columns, in the benchmark's order (SPEC 1).
var nexmarkColumns = map[string][]catalog.Column{
	"person": {
		{Name: "id", Type: catalog.BigInt}, {Name: "name", Type: catalog.Varchar},
		{Name: "emailAddress", Type: catalog.Varchar}, {Name: "creditCard", Type: catalog.Varchar},
		{Name: "city", Type: catalog.Varchar}, {Name: "state", Type: catalog.Varchar},
		{Name: "dateTime", Type: catalog.Timestamp}, {Name: "extra", Type: catalog.Varchar},
	},
	"auction": {
		{Name: "id", Type: catalog.BigInt}, {Name: "itemName", Type: catalog.Varchar},
		{Name: "description", Type: catalog.Varchar}, {Name: "initialBid", Type: catalog.BigInt},
		{Name: "reserve", Type: catalog.BigInt}, {Name: "dateTime", Type: catalog.Timestamp},
		{Name: "expires", Type: catalog.Timestamp}, {Name: "seller", Type: catalog.BigInt},
		{Name: "category", Type: catalog.BigInt}, {Name: "extra", Type: catalog.Varchar},
	},
	"bid": {
		{Name: "auction", Type: catalog.BigInt}, {Name: "bidder", Type: catalog.BigInt},
		{Name: "price", Type: catalog.BigInt}, {Name: "channel", Type: catalog.Varchar},
		{Name: "url", Type: catalog.Varchar}, {Name: "dateTime", Type: catalog.Timestamp},
		{Name: "extra", Type: catalog.Varchar},
	},
}

// NexmarkColumns returns the columns of Nexmark table (person, auction or
// bid) in the benchmark's order with their SPEC 1 types, or nil for another
// name.
func NexmarkColumns(table string) []catalog.Column {
	return append([]catalog.Column(nil), nexmarkColumns[table]...)
}

func init() {
	Register(&catalog.ConnectorSpec{
		Name: "nexmark", Doc: "generates the Nexmark benchmark's person, auction or bid events; bounded when 'events.num' is set",
		Options: []catalog.OptionSpec{
			{Name: "table", Kind: catalog.OptEnum, Values: []string{"person", "auction", "bid"}, Required: true, Doc: "which events: person, auction or bid"},
			{Name: "events.num", Kind: catalog.OptInt, Doc: "events of the whole sequence (all kinds); absent or 0 = unbounded"},
			{Name: "first-event.rate", Kind: catalog.OptInt, Doc: "events per second: spaces event times and paces the stream; absent = 10000/s event times, as fast as possible"},
			{Name: "next-event.rate", Kind: catalog.OptInt, Doc: "accepted for Flink's DDL; unused, as in Flink's generator"},
			{Name: "person.proportion", Kind: catalog.OptInt, Default: "1", Doc: "persons per cycle of event ids"},
			{Name: "auction.proportion", Kind: catalog.OptInt, Default: "3", Doc: "auctions per cycle of event ids"},
			{Name: "bid.proportion", Kind: catalog.OptInt, Default: "46", Doc: "bids per cycle of event ids"},
			{Name: "seed", Kind: catalog.OptInt, Default: "0", Doc: "random seed; the same options give the same events"},
			{Name: "out-of-order.group-size", Kind: catalog.OptInt, Default: "1", Doc: "event times are shuffled within groups of this many events (1: in order)"},
		},
		Bounded:    func(o map[string]string) bool { n := o["events.num"]; return n != "" && strings.Trim(n, "0") != "" },
		Validate:   CheckNexmark,
		Caps:       catalog.CapReread, // (each open generates every event anew)
		Repeatable: always,            // (event times follow the event numbers, not the pacing clock)
	}, &Driver{Open: func(ctx context.Context, st *catalog.Stream, env *Env) (Source, error) {
		return OpenNexmark(ctx, st, env.Clock)
	}})
}

// nexmark column fields: what a declared column holds.
const (
	nfID = iota // person id, auction id
	nfName
	nfEmail
	nfCard
	nfCity
	nfState
	nfTime
	nfExtra
	nfItem
	nfDesc
	nfInitial
	nfReserve
	nfExpires
	nfSeller
	nfCategory
	nfAuction // bid
	nfBidder
	nfPrice
	nfChannel
	nfURL
)

var nexmarkFields = map[string]map[string]int{
	"person":  {"id": nfID, "name": nfName, "emailaddress": nfEmail, "creditcard": nfCard, "city": nfCity, "state": nfState, "datetime": nfTime, "extra": nfExtra},
	"auction": {"id": nfID, "itemname": nfItem, "description": nfDesc, "initialbid": nfInitial, "reserve": nfReserve, "datetime": nfTime, "expires": nfExpires, "seller": nfSeller, "category": nfCategory, "extra": nfExtra},
	"bid":     {"auction": nfAuction, "bidder": nfBidder, "price": nfPrice, "channel": nfChannel, "url": nfURL, "datetime": nfTime, "extra": nfExtra},
}

// nexmarkConfig is a nexmark stream's options, read.
type nexmarkConfig struct {
	model  nexmarkModel
	kind   nexmarkKind
	events int64 // events of the sequence, -1 = unbounded
	rate   int64 // pace, events/s; 0 = as fast as possible
	fields []int // per declared column, its nf* field
	extra  bool  // a column holds 'extra' (drawn last, so only then)
}

// CheckNexmark validates a nexmark stream's options and columns beyond their
// kinds: every column is one of the table's (by name, case-insensitive) with
// its type, proportions that make persons and auctions, rates and a group
// size of at least 1. It returns an *OptionError, or an error naming the
// column.
func CheckNexmark(st *catalog.Stream) error {
	_, err := newNexmarkConfig(st)
	return err
}

func newNexmarkConfig(st *catalog.Stream) (*nexmarkConfig, error) {
	o := st.Options
	c := &nexmarkConfig{events: -1}
	table := o["table"]
	c.kind = map[string]nexmarkKind{"person": nxPerson, "auction": nxAuction, "bid": nxBid}[table]
	num := func(key string, lo int64, why string) (int64, error) {
		v := strings.TrimSpace(o[key])
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < lo || n > 1_000_000_000 {
			return 0, &OptionError{Key: key, Msg: fmt.Sprintf("'%s' must be from %d to 1000000000%s", o[key], lo, why)}
		}
		return n, nil
	}
	var err error
	if v := o["events.num"]; v != "" {
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil {
			return nil, &OptionError{Key: "events.num", Msg: "'" + v + "' is not an event count"}
		}
		if n > 0 {
			c.events = n
		}
	}
	rate := int64(nexmarkDefaultRate)
	if o["next-event.rate"] != "" {
		if _, err = num("next-event.rate", 1, " events per second"); err != nil {
			return nil, err
		}
	}
	if o["first-event.rate"] != "" {
		if rate, err = num("first-event.rate", 1, " events per second (leave it out for as fast as possible)"); err != nil {
			return nil, err
		}
		c.rate = rate
	}
	m := &c.model
	m.delayUs = 1e6 / float64(rate)
	if m.personP, err = num("person.proportion", 1, " (every cycle of event ids needs a person)"); err != nil {
		return nil, err
	}
	if m.auctionP, err = num("auction.proportion", 1, " (every cycle of event ids needs an auction)"); err != nil {
		return nil, err
	}
	if m.bidP, err = num("bid.proportion", 0, ""); err != nil {
		return nil, err
	}
	m.total = m.personP + m.auctionP + m.bidP
	if m.group, err = num("out-of-order.group-size", 1, " events"); err != nil {
		return nil, err
	}
	seed, perr := strconv.ParseUint(o["seed"], 10, 64)
	if perr != nil {
		return nil, &OptionError{Key: "seed", Msg: "'" + o["seed"] + "' is not a non-negative integer"}
	}
	m.seed = seed
	fields := nexmarkFields[table]
	for _, col := range st.Columns {
		f, ok := fields[strings.ToLower(col.Name)]
		if !ok {
			return nil, fmt.Errorf("stream %s: column %s is not a column of the nexmark %s table; its columns are %s", st.Name, col.Name, table, nexmarkColumnList(table))
		}
		want := nexmarkColumns[table][nexmarkColumnIndex(table, col.Name)].Type
		if col.Type != want {
			return nil, fmt.Errorf("stream %s: column %s of the nexmark %s table is %s, not %s; declare it %s (and CAST it in the query)", st.Name, col.Name, table, want, col.Type, want)
		}
		c.fields = append(c.fields, f)
		c.extra = c.extra || f == nfExtra
	}
	return c, nil
}

func nexmarkColumnIndex(table, name string) int {
	for i, c := range nexmarkColumns[table] {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func nexmarkColumnList(table string) string {
	var s []string
	for _, c := range nexmarkColumns[table] {
		s = append(s, c.Name+" "+c.Type.String())
	}
	return strings.Join(s, ", ")
}

// nexmarkSource is the source of a nexmark stream.
type nexmarkSource struct {
	ctx   context.Context
	cfg   *nexmarkConfig
	clock Clock
	start time.Time
	next  int64 // the next event's count k
	rows  int64 // rows given so far
	dirty bool  // rows were returned since the last ErrWaiting
	tab   *nexmarkTab
	rnd   nxRand
	ar    *[]byte // where built strings go (arena)
	// scratch takes the built strings when the stream has no VARCHAR column
	scratch []byte
}

// OpenNexmark opens the source of a nexmark stream (SPEC 1); clock paces it
// when 'first-event.rate' is set (nil: the wall clock). Errors name the stream
// and the option.
func OpenNexmark(ctx context.Context, st *catalog.Stream, clock Clock) (Source, error) {
	cfg, err := newNexmarkConfig(st)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", st.Name, err)
	}
	if clock == nil {
		clock = WallClock{}
	}
	return &nexmarkSource{ctx: ctx, cfg: cfg, clock: clock, start: clock.Now(), tab: nexmarkTables()}, nil
}

func (s *nexmarkSource) Next(b *vector.Batch, _ *[]BadRow) error {
	end := s.cfg.events
	if end >= 0 && s.next >= end {
		return io.EOF
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if end < 0 {
		end = 1<<62 - 1
	}
	if rate := s.cfg.rate; rate > 0 {
		due, err := paced(s.ctx, s.clock, s.start, s.next, rate, &s.dirty)
		if err != nil {
			return err
		}
		end = min(end, due)
	}
	s.fill(b, end)
	s.dirty = b.N > 0 || s.dirty
	return nil
}

// fill resets b and generates the rows of this stream's kind among events
// s.next .. end-1, stopping when b is full.
func (s *nexmarkSource) fill(b *vector.Batch, end int64) {
	b.Reset()
	s.scratch = s.scratch[:0]
	s.ar = s.arena(b)
	m := &s.cfg.model
	n := 0
	k := s.next
	lo, hi := m.kindRange(s.cfg.kind)
	if m.group == 1 {
		// event k has id k+2 (a = k+1): walk the cycle's offsets and jump
		// over the other kinds' events
		epoch, off := m.split(k + 2)
		for k < end && n < vector.Cap && lo < hi {
			if off < lo || off >= hi {
				d := lo - off
				if d < 0 {
					d += m.total
					epoch++
				}
				k, off = k+d, lo
				continue
			}
			s.emit(b, n, epoch, off, k+1)
			n++
			k++
			if off++; off == m.total {
				epoch, off = epoch+1, 0
			}
		}
		if lo == hi { // a kind of proportion 0: no rows
			k = end
		}
		k = min(k, end)
	}
	for ; m.group > 1 && k < end && n < vector.Cap; k++ {
		a := m.adjusted(k + 1)
		epoch, off := m.split(1 + a)
		if off >= lo && off < hi {
			s.emit(b, n, epoch, off, a)
			n++
		}
	}
	s.next = k
	b.N = n
}

// emit writes the event of adjusted number a, at offset off of cycle epoch,
// as row i of b.
func (s *nexmarkSource) emit(b *vector.Batch, i int, epoch, off, a int64) {
	m := &s.cfg.model
	s.rnd.seedEvent(m.seed, 1+a)
	switch s.cfg.kind {
	case nxPerson:
		s.person(b, i, epoch, off, m.timeOf(a))
	case nxAuction:
		s.auction(b, i, epoch, off, a, m.timeOf(a))
	default:
		s.bid(b, i, epoch, off, m.timeOf(a))
	}
	s.rows++
	b.Pos[i] = s.rows
}

// setI, setS write row i of column c.
func setI(b *vector.Batch, c, i int, v int64) {
	col := b.Cols[c]
	col.I[i], col.Null[i] = v, false
}

func setS(b *vector.Batch, c, i int, v []byte) {
	col := b.Cols[c]
	col.S[i], col.Null[i] = v, false
}

// person writes the person of the event at offset off of cycle epoch, at time ts as row i of b.
func (s *nexmarkSource) person(b *vector.Batch, i int, epoch, off, ts int64) {
	r := &s.rnd
	m := &s.cfg.model
	name := s.tab.names[r.intn(int64(len(s.tab.names)))]
	// the email and the credit card are built in the arena (s.ar) and pointed at
	var email, card []byte
	ar := s.ar
	start := len(*ar)
	*ar = r.appendWord(*ar, &s.tab.wordChars, 7, ' ')
	*ar = append(*ar, '@')
	*ar = r.appendWord(*ar, &s.tab.wordChars, 5, ' ')
	*ar = append(*ar, ".com"...)
	email = (*ar)[start:len(*ar):len(*ar)]
	start = len(*ar)
	for g := range 4 {
		if g > 0 {
			*ar = append(*ar, ' ')
		}
		v := r.intn(10000)
		*ar = append(*ar, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	card = (*ar)[start:len(*ar):len(*ar)]
	city := s.tab.cities[r.intn(int64(len(s.tab.cities)))]
	state := s.tab.states[r.intn(int64(len(s.tab.states)))]
	var extra []byte
	if s.cfg.extra {
		extra = r.extra(8+len(name)+len(email)+len(card)+len(city)+len(state), nexmarkAvgPerson)
	}
	for c, f := range s.cfg.fields {
		switch f {
		case nfID:
			setI(b, c, i, m.lastPerson(epoch, off)+nexmarkFirstPersonID)
		case nfName:
			setS(b, c, i, name)
		case nfEmail:
			setS(b, c, i, email)
		case nfCard:
			setS(b, c, i, card)
		case nfCity:
			setS(b, c, i, city)
		case nfState:
			setS(b, c, i, state)
		case nfTime:
			setI(b, c, i, ts)
		case nfExtra:
			setS(b, c, i, extra)
		}
	}
}

// auction writes the auction of the event at offset off of cycle epoch,
// adjusted number a, at time ts
// as row i of b.
func (s *nexmarkSource) auction(b *vector.Batch, i int, epoch, off, a, ts int64) {
	r := &s.rnd
	m := &s.cfg.model
	var seller int64
	if r.intn(nexmarkHotSellerRatio) > 0 {
		seller = m.lastPerson(epoch, off) / nexmarkHotBlock * nexmarkHotBlock
	} else {
		seller = m.randomPerson(epoch, off, r)
	}
	category := nexmarkFirstCategoryID + r.intn(nexmarkNumCategories)
	initial := r.price(&s.tab.pow10)
	expires := ts + m.auctionLength(a, ts, r)
	ar := s.ar
	start := len(*ar)
	*ar = r.appendWord(*ar, &s.tab.wordChars, 20, ' ')
	item := (*ar)[start:len(*ar):len(*ar)]
	start = len(*ar)
	*ar = r.appendWord(*ar, &s.tab.wordChars, 100, ' ')
	desc := (*ar)[start:len(*ar):len(*ar)]
	reserve := initial + r.price(&s.tab.pow10)
	var extra []byte
	if s.cfg.extra {
		extra = r.extra(8+len(item)+len(desc)+40, nexmarkAvgAuction)
	}
	for c, f := range s.cfg.fields {
		switch f {
		case nfID:
			setI(b, c, i, m.lastAuction(epoch, off)+nexmarkFirstAuctionID)
		case nfItem:
			setS(b, c, i, item)
		case nfDesc:
			setS(b, c, i, desc)
		case nfInitial:
			setI(b, c, i, initial)
		case nfReserve:
			setI(b, c, i, reserve)
		case nfTime:
			setI(b, c, i, ts)
		case nfExpires:
			setI(b, c, i, expires)
		case nfSeller:
			setI(b, c, i, seller+nexmarkFirstPersonID)
		case nfCategory:
			setI(b, c, i, category)
		case nfExtra:
			setS(b, c, i, extra)
		}
	}
}

// bid writes the bid of the event at offset off of cycle epoch, at time ts as row i of b.
func (s *nexmarkSource) bid(b *vector.Batch, i int, epoch, off, ts int64) {
	r := &s.rnd
	m := &s.cfg.model
	var auction, bidder int64
	if r.intn(nexmarkHotAuctionRatio) > 0 {
		auction = m.lastAuction(epoch, off) / nexmarkHotBlock * nexmarkHotBlock
	} else {
		auction = m.randomAuction(epoch, off, r)
	}
	if r.intn(nexmarkHotBidderRatio) > 0 {
		bidder = m.lastPerson(epoch, off)/nexmarkHotBlock*nexmarkHotBlock + 1
	} else {
		bidder = m.randomPerson(epoch, off, r)
	}
	price := r.price(&s.tab.pow10)
	var channel, url []byte
	if r.intn(2) > 0 {
		h := r.intn(int64(len(s.tab.hotChannels)))
		channel, url = s.tab.hotChannels[h], s.tab.hotURLs[h]
	} else {
		h := r.intn(nexmarkChannels)
		ch := &s.tab.channels[h]
		channel, url = ch.name, ch.url
	}
	var extra []byte
	if s.cfg.extra {
		extra = r.extra(32, nexmarkAvgBid)
	}
	for c, f := range s.cfg.fields {
		switch f {
		case nfAuction:
			setI(b, c, i, auction+nexmarkFirstAuctionID)
		case nfBidder:
			setI(b, c, i, bidder+2*nexmarkFirstPersonID)
		case nfPrice:
			setI(b, c, i, price)
		case nfChannel:
			setS(b, c, i, channel)
		case nfURL:
			setS(b, c, i, url)
		case nfTime:
			setI(b, c, i, ts)
		case nfExtra:
			setS(b, c, i, extra)
		}
	}
}

// arena returns the arena that built strings of row values go to: the first
// VARCHAR column's (every VARCHAR column's arena lives as long as the batch),
// or the source's scratch arena when the stream declares none.
func (s *nexmarkSource) arena(b *vector.Batch) *[]byte {
	for _, c := range b.Cols {
		if c.Type == catalog.Varchar {
			return &c.Arena
		}
	}
	return &s.scratch
}

func (s *nexmarkSource) Position(line int64) string { return rowNumber(line) }

func (s *nexmarkSource) Progress() (int64, int64) { return 0, 0 }

func (s *nexmarkSource) Close() error { return nil }
