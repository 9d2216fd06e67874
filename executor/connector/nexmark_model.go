package connector

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
)

// The Nexmark model (the 'nexmark' connector, SPEC 1), learned from the public
// Nexmark generator that Flink's benchmark runs (github.com/nexmark/nexmark:
// GeneratorConfig, NexmarkConfiguration, PersonGenerator, AuctionGenerator,
// BidGenerator, StringsGenerator, PriceGenerator) and written anew. Its numbers
// are that generator's, so that a query gives Flink-comparable results:
//
//   - One sequence of events, counted k = 0, 1, 2, ... Event k has the event
//     number n = k + 1 and the adjusted number a = (n / G)·G + (n·953) mod G,
//     where G is the out-of-order group size (NexmarkConfiguration's
//     outOfOrderGroupSize, default 1: then a = n). Its event id is 1 + a and its
//     event time nexmarkBaseTime + ⌊a · 10⁶/rate⌋ µs, in ms (Java's
//     (long)(a · interEventDelayUs) / 1000). The rate is 'first-event.rate'
//     (Flink's default 10,000 events/s when absent), so with G = 1 event times
//     never decrease, and with G > 1 they are out of order within a group of
//     G events only (bounded by (G-1)·10⁶/rate µs).
//   - The event id decides the kind: id mod (P+A+B) below P is a person, below
//     P+A an auction, else a bid (P, A, B: the three proportions, 1, 3, 46).
//   - Ids grow: a person's id is 1000 (FIRST_PERSON_ID) + the number of
//     persons before it in the proportions' cycle, an auction's 1000
//     (FIRST_AUCTION_ID) + the number of auctions before it.
//   - Hot sellers: an auction's seller is, with probability 3/4
//     (hot-ratio.sellers 4), the first person of the last block of 100
//     persons, else one of the last 1,000 active persons or 10 not yet
//     created ones (PERSON_ID_LEAD). Category: 10 (FIRST_CATEGORY_ID) + 0..4.
//   - Hot auctions and bidders: a bid's auction is, with probability 1/2
//     (hot-ratio.auctions 2), the first auction of the last block of 100, else
//     one of the last 100 in-flight auctions or 10 ahead; its bidder is, with
//     probability 3/4 (hot-ratio.bidders 4), the second person of the last
//     block of 100, else an active person. Like Flink's BidGenerator, which
//     adds FIRST_PERSON_ID twice, bidder ids are the person's base-0 id + 2000.
//   - Auctions expire: expires = dateTime + 1 + uniform[0, 2·h) ms, h being the
//     event-time span of the next 100 (numInFlightAuctions) auctions.
//   - Prices: round(10^(6u) · 100), u uniform in [0, 1); reserve = initialBid
//     + another price.
//   - Channels: with probability 1/2 one of Google, Facebook, Baidu, Apple with
//     its own url, else channel-<i> (i in 0..9999) whose url ends with
//     &channel_id=|reverse of i's 32 bits| for 9 of 10 channels.
//   - Strings: names, cities and states from the generator's lists; random
//     words of 3 to max-1 letters (a space, '_' in urls, at 1 in 13, trimmed);
//     'extra' pads a row to an average of 200 (person), 500 (auction) or 100
//     (bid) bytes with a slice of one fixed 1 MiB string of random letters.
//
// Random values: Flink's generator draws them from an unseeded random source,
// so they differ on every run. Here event id e draws from a splitmix64 stream
// seeded by ('seed', e): the same options give the same events, each of the
// three streams computes only its own kind's events, and the three agree on
// one sequence. The url tables and the 1 MiB string come from a fixed seed.

// Constants of the Nexmark generator (GeneratorConfig, NexmarkConfiguration,
// the model generators).
const (
	nexmarkFirstPersonID   = 1000 // GeneratorConfig.FIRST_PERSON_ID
	nexmarkFirstAuctionID  = 1000 // GeneratorConfig.FIRST_AUCTION_ID
	nexmarkFirstCategoryID = 10   // GeneratorConfig.FIRST_CATEGORY_ID
	nexmarkNumCategories   = 5
	nexmarkPersonIDLead    = 10
	nexmarkAuctionIDLead   = 10
	nexmarkHotBlock        = 100 // HOT_SELLER_RATIO, HOT_AUCTION_RATIO, HOT_BIDDER_RATIO
	nexmarkHotAuctionRatio = 2   // bid.hot-ratio.auctions
	nexmarkHotBidderRatio  = 4   // bid.hot-ratio.bidders
	nexmarkHotSellerRatio  = 4   // auction.hot-ratio.sellers
	nexmarkActivePeople    = 1000
	nexmarkInFlight        = 100 // numInFlightAuctions
	nexmarkChannels        = 10_000
	nexmarkAvgPerson       = 200
	nexmarkAvgAuction      = 500
	nexmarkAvgBid          = 100
	nexmarkDefaultRate     = 10_000 // events/s: Flink's first-event.rate default
	nexmarkOutOfOrderMul   = 953    // GeneratorConfig.nextAdjustedEventNumber
	nexmarkExtraLen        = 1 << 20
	// nexmarkBaseTime is the event time of event number 0, epoch ms:
	// 2015-07-15 00:00:00 UTC, the base time of Beam's Nexmark (Flink's
	// generator takes the wall clock instead, which is not reproducible).
	nexmarkBaseTime = 1436918400000
)

// nexmarkKind is the kind of an event.
type nexmarkKind uint8

const (
	nxPerson nexmarkKind = iota
	nxAuction
	nxBid
)

// nexmarkModel is one event sequence's parameters (a nexmark stream's options).
type nexmarkModel struct {
	personP, auctionP, bidP, total int64
	delayUs                        float64 // event-time spacing of event numbers, µs
	group                          int64   // out-of-order group size, >= 1
	seed                           uint64
}

// adjusted returns the adjusted event number of event number n.
func (m *nexmarkModel) adjusted(n int64) int64 {
	if m.group == 1 {
		return n
	}
	return n/m.group*m.group + n%m.group*nexmarkOutOfOrderMul%m.group
}

// timeOf returns the event time (epoch ms) of adjusted event number a.
func (m *nexmarkModel) timeOf(a int64) int64 {
	return nexmarkBaseTime + int64(float64(a)*m.delayUs)/1000
}

// split returns the cycle of event id eid and its offset in the cycle of
// the proportions (eid / total, eid mod total).
func (m *nexmarkModel) split(eid int64) (epoch, off int64) {
	return eid / m.total, eid % m.total
}

// kindRange returns the offsets [lo, hi) of kind's events in a cycle of the
// proportions.
func (m *nexmarkModel) kindRange(kind nexmarkKind) (lo, hi int64) {
	switch kind {
	case nxPerson:
		return 0, m.personP
	case nxAuction:
		return m.personP, m.personP + m.auctionP
	}
	return m.personP + m.auctionP, m.total
}

// lastPerson returns the base-0 id of the last person created at the event
// at offset off of cycle epoch (the event's own when it is a person).
func (m *nexmarkModel) lastPerson(epoch, off int64) int64 {
	if off >= m.personP {
		off = m.personP - 1
	}
	return epoch*m.personP + off
}

// lastAuction returns the base-0 id of the last auction created at the
// event at offset off of cycle epoch (the event's own when it is an auction).
func (m *nexmarkModel) lastAuction(epoch, off int64) int64 {
	switch {
	case off < m.personP:
		epoch--
		off = m.auctionP - 1
	case off >= m.personP+m.auctionP:
		off = m.auctionP - 1
	default:
		off -= m.personP
	}
	return epoch*m.auctionP + off
}

// randomPerson returns an active person's base-0 id, or one of the next few.
func (m *nexmarkModel) randomPerson(epoch, off int64, r *nxRand) int64 {
	people := m.lastPerson(epoch, off) + 1
	active := min(people, nexmarkActivePeople)
	return people - active + r.intn(active+nexmarkPersonIDLead)
}

// randomAuction returns the base-0 id of an auction likely in flight, or one of
// the next few.
func (m *nexmarkModel) randomAuction(epoch, off int64, r *nxRand) int64 {
	last := m.lastAuction(epoch, off)
	lo := max(last-nexmarkInFlight, 0)
	return lo + r.intn(last-lo+1+nexmarkAuctionIDLead)
}

// auctionLength returns how long an auction of adjusted number a at time ts
// runs, ms.
func (m *nexmarkModel) auctionLength(a, ts int64, r *nxRand) int64 {
	ahead := nexmarkInFlight * m.total / m.auctionP
	horizon := m.timeOf(a+ahead) - ts
	return 1 + r.intn(max(horizon*2, 1))
}

// nxRand is a splitmix64 stream (the generator behind Java's SplittableRandom).
type nxRand struct{ s uint64 }

// seedEvent starts r for event id eid of the sequence seeded with seed.
func (r *nxRand) seedEvent(seed uint64, eid int64) {
	r.s = mix64(seed+0x632be59bd9b4e019) ^ uint64(eid)*0x9e3779b97f4a7c15
}

func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *nxRand) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// intn returns a value in [0, n), n > 0 (Lemire's multiply-shift).
func (r *nxRand) intn(n int64) int64 {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int64(hi)
}

// price returns a Nexmark price: round(10^(6u) · 100), u uniform in [0, 1)
// (PriceGenerator). u has 52 bits: 10^(6u) is the table's 10^(6·hi/4096)
// times 10^(6·lo/2^52) for the low 40 bits, whose exponent is below 0.0034,
// from four terms of its series (relative error below 10⁻¹²).
func (r *nxRand) price(pow *[4096]float64) int64 {
	x := r.next() >> 12 // 52 bits
	hi, lo := x>>40, x&(1<<40-1)
	y := float64(lo) * (6 * math.Ln10 / (1 << 52))
	f := pow[hi] * (1 + y*(1+y*(0.5+y*(1.0/6))))
	return int64(math.Floor(f*100 + 0.5))
}

// appendWord appends a random word of 3 to maxLen-1 characters from chars
// (nexmarkTab.wordChars: lower-case letters, and special at a chance of 1 in
// 13), without leading or trailing spaces (StringsGenerator.nextString, Java's
// trim).
func (r *nxRand) appendWord(dst []byte, chars *[1 << 16]byte, maxLen int64, special byte) []byte {
	n := int(3 + r.intn(maxLen-3))
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	w := dst[start:]
	var x uint64
	for i := range w {
		if i%4 == 0 {
			x = r.next()
		}
		w[i] = chars[x&0xffff]
		x >>= 16
	}
	if special != ' ' {
		for i, c := range w {
			if c == ' ' {
				w[i] = special
			}
		}
		return dst
	}
	i, j := 0, len(w)
	for i < j && w[i] == ' ' {
		i++
	}
	for j > i && w[j-1] == ' ' {
		j--
	}
	if i > 0 {
		copy(w, w[i:j])
	}
	return dst[:start+j-i]
}

// extra returns the padding of a row whose other fields take size bytes, for
// an average of avg bytes (StringsGenerator.nextExtra): about avg-size bytes,
// ±20%, a slice of the shared random string (never copied).
func (r *nxRand) extra(size, avg int) []byte {
	if size > avg {
		return nil
	}
	want := avg - size
	delta := int(math.Floor(float64(want)*0.2 + 0.5))
	n := want - delta
	if delta > 0 {
		n += int(r.intn(int64(2 * delta)))
	}
	tab := nexmarkTables()
	off := r.intn(int64(len(tab.extra) - n))
	return tab.extra[off : off+int64(n) : off+int64(n)]
}

// nexmarkChannel is one of the 10,000 channels: its name and url, side by
// side (a bid reads both: one cache line).
type nexmarkChannel struct{ name, url []byte }

// nexmarkTab holds the generator's fixed strings, built once.
type nexmarkTab struct {
	names       [][]byte // first name + " " + last name, 11 × 9
	cities      [][]byte
	states      [][]byte
	hotChannels [][]byte
	hotURLs     [][]byte
	channels    []nexmarkChannel // channel-<i> and its url
	extra       []byte           // nexmarkExtraLen random letters
	// wordChars maps 16 random bits to a word's character: a space for 1 in
	// 13 (v = bits·338 >> 16 below 26), else a letter a-z
	wordChars [1 << 16]byte
	pow10     [4096]float64 // 10^(6i/4096), for prices
}

var (
	nexmarkTabOnce sync.Once
	nexmarkTabVal  *nexmarkTab
)

var (
	nexmarkFirstNames = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	nexmarkLastNames  = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	nexmarkCities     = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	nexmarkStates     = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	nexmarkHotNames   = []string{"Google", "Facebook", "Baidu", "Apple"}
)

// nexmarkTables returns the fixed strings (built on first use, from a fixed
// seed, so every run and every stream sees the same ones).
func nexmarkTables() *nexmarkTab {
	nexmarkTabOnce.Do(func() {
		t := &nexmarkTab{}
		for x := range t.wordChars {
			if v := x * 338 >> 16; v < 26 {
				t.wordChars[x] = ' '
			} else {
				t.wordChars[x] = byte('a' + v%26)
			}
		}
		for _, f := range nexmarkFirstNames {
			for _, l := range nexmarkLastNames {
				t.names = append(t.names, []byte(f+" "+l))
			}
		}
		for _, c := range nexmarkCities {
			t.cities = append(t.cities, []byte(c))
		}
		for _, s := range nexmarkStates {
			t.states = append(t.states, []byte(s))
		}
		for i := range t.pow10 {
			t.pow10[i] = math.Pow(10, 6*float64(i)/4096)
		}
		r := nxRand{s: 42}
		baseURL := func() []byte {
			u := []byte("https://www.nexmark.com/")
			for range 3 {
				u = r.appendWord(u, &t.wordChars, 5, '_')
				u = append(u, '/')
			}
			return append(u, "item.htm?query=1"...)
		}
		for _, h := range nexmarkHotNames {
			t.hotChannels = append(t.hotChannels, []byte(h))
			t.hotURLs = append(t.hotURLs, baseURL())
		}
		for i := range nexmarkChannels {
			u := baseURL()
			if r.intn(10) > 0 {
				// Java's Math.abs(Integer.reverse(i)); the abs of MinInt32 stays negative
				v := int32(bits.Reverse32(uint32(i)))
				if v < 0 && v != math.MinInt32 {
					v = -v
				}
				u = strconv.AppendInt(append(u, "&channel_id="...), int64(v), 10)
			}
			t.channels = append(t.channels, nexmarkChannel{[]byte("channel-" + strconv.Itoa(i)), u})
		}
		t.extra = make([]byte, nexmarkExtraLen)
		for i := range t.extra {
			t.extra[i] = byte('a' + r.intn(26))
		}
		nexmarkTabVal = t
	})
	return nexmarkTabVal
}
