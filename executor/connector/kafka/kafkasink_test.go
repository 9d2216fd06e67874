package kafka

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaChunkRecycledAfterLastPromise: a block of records goes back to the
// pool only once the sink left it and every record in it was promised,
// whichever comes last; before, its records and bytes are untouched.
func TestKafkaChunkRecycledAfterLastPromise(t *testing.T) {
	for _, sealFirst := range []bool{true, false} {
		c := newKafkaChunk()
		var recs []*kgo.Record
		for i := range 3 {
			r := c.record()
			r.Value = c.copyIn([]byte("row" + strconv.Itoa(i)))
			recs = append(recs, r)
		}
		c.done() // two of three promised
		c.done()
		if sealFirst {
			c.seal()
		}
		if c.n != 3 || string(recs[2].Value) != "row2" || string(recs[0].Value) != "row0" {
			t.Fatalf("sealFirst=%v: a block with a record in flight was recycled (n=%d, values %q %q)", sealFirst, c.n, recs[0].Value, recs[2].Value)
		}
		if sealFirst {
			c.done()
		} else {
			c.done()
			if c.n != 3 {
				t.Fatalf("a block the sink still writes into was recycled when its records were all promised")
			}
			c.seal()
		}
		if c.n != 0 || len(c.data) != 0 || recs[0].Value != nil {
			t.Fatalf("sealFirst=%v: a block whose records were all promised was not recycled (n=%d, %d bytes)", sealFirst, c.n, len(c.data))
		}
	}
}

// TestKafkaSinkRecords: the sink's records share blocks; a full block (by
// records or by bytes) gives way to a new one, a record larger than a block
// gets its own bytes without ending the block; the records of one batch
// share one millisecond timestamp and the next batch reads the clock again.
func TestKafkaSinkRecords(t *testing.T) {
	s := &kafkaSink{topic: "t"}
	s.promise = s.delivered
	var recs []*kgo.Record
	first := s.record(4)
	first.Value = s.chunk.copyIn([]byte("abcd"))
	c0 := s.chunk
	big := bytes.Repeat([]byte("x"), kafkaChunkBytes+1)
	r := s.record(len(big))
	r.Value = s.chunk.copyIn(big)
	if s.chunk != c0 || !bytes.Equal(r.Value, big) || len(c0.data) != 4 {
		t.Fatalf("a record larger than a block ended the block or took its bytes (%d bytes in it)", len(c0.data))
	}
	if first.Timestamp != r.Timestamp || first.Timestamp.IsZero() || first.Timestamp.Nanosecond()%int(time.Millisecond) != 0 {
		t.Fatalf("timestamps %v and %v: want one millisecond timestamp per batch", first.Timestamp, r.Timestamp)
	}
	recs = append(recs, first, r)
	for i := 2; i < kafkaChunkRecs+5; i++ {
		v := []byte(strings.Repeat("v", i%7) + strconv.Itoa(i))
		r := s.record(len(v))
		r.Value = s.chunk.copyIn(v)
		recs = append(recs, r)
	}
	if s.chunk == c0 || recs[kafkaChunkRecs-1].Context != c0 || recs[kafkaChunkRecs].Context != s.chunk {
		t.Fatalf("the %d+1st record did not start a new block", kafkaChunkRecs)
	}
	for i := 2; i < len(recs); i++ {
		if want := strings.Repeat("v", i%7) + strconv.Itoa(i); string(recs[i].Value) != want || recs[i].Topic != "t" {
			t.Fatalf("record %d: value %q topic %q, want %q t", i, recs[i].Value, recs[i].Topic, want)
		}
	}
	// Blocks full by bytes.
	c1 := s.chunk
	v := bytes.Repeat([]byte("y"), kafkaChunkBytes/2)
	for range 3 {
		r := s.record(len(v))
		r.Value = s.chunk.copyIn(v)
	}
	if s.chunk == c1 {
		t.Fatalf("a block took more than %d bytes", kafkaChunkBytes)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	if r := s.record(1); !r.Timestamp.After(first.Timestamp) {
		t.Fatalf("after Flush, a record has the last batch's timestamp %v", r.Timestamp)
	}
	// A delivery error is the sink's error from then on.
	s.st = nil
	s.delivered(recs[3], errors.New("broker said no"))
	if !s.hasErr.Load() || s.err == nil {
		t.Fatalf("a delivery error was not kept")
	}
}

// TestKafkaSinkRecordsAllocateNothing: once the blocks of acknowledged
// records are back in the pool, writing records allocates nothing (SPEC's
// hot path rule; before, every 1024 records took a new block of records and
// every MiB of values a new slab, left to the GC).
func TestKafkaSinkRecordsAllocateNothing(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector makes sync.Pool drop blocks at random")
	}
	s := &kafkaSink{topic: "t"}
	s.promise = s.delivered
	val := []byte("设备1,1610035289761,61.7")
	inFlight := make([]*kgo.Record, 0, 4*kafkaChunkRecs)
	batch := func() {
		for range 4 * kafkaChunkRecs {
			r := s.record(len(val))
			r.Value = s.chunk.copyIn(val)
			inFlight = append(inFlight, r)
		}
		for _, r := range inFlight { // the broker acknowledged them
			s.promise(r, nil)
		}
		inFlight = inFlight[:0]
		s.stamp = time.Time{}
	}
	batch()
	if n := testing.AllocsPerRun(20, batch); n > 0 {
		t.Errorf("writing %d records allocates %.1f times, want 0", 4*kafkaChunkRecs, n)
	}
}

// TestKafkaSinkCompression: a sink compresses with lz4 (none when a batch does
// not get smaller) unless 'properties.compression.type' says otherwise.
func TestKafkaSinkCompression(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want []kgo.CompressionCodec
	}{
		{nil, []kgo.CompressionCodec{kgo.Lz4Compression(), kgo.NoCompression()}},
		{[]string{"properties.compression.type", "snappy"}, []kgo.CompressionCodec{kgo.SnappyCompression()}},
		{[]string{"properties.compression.type", "none"}, []kgo.CompressionCodec{kgo.NoCompression()}},
	} {
		cl := kafkaClientOf(t, kafkaProducerOpts, tc.kv...)
		got := cl.OptValue(kgo.ProducerBatchCompression)
		cl.Close()
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: compression %v, want %v", tc.kv, got, tc.want)
		}
	}
}

// TestKafkaChunkContextAfterReuse: franz-go may still ask a record's context
// (a producer waiting for a new topic's metadata) after the record was
// promised and its block reused: the context is never canceled, and asking it
// races with nothing the sink does (go test -race).
func TestKafkaChunkContextAfterReuse(t *testing.T) {
	c := newKafkaChunk()
	ctx := c.record().Context
	stop := make(chan struct{})
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				t.Error("a record's context was canceled")
				return
			default:
			}
			if ctx.Err() != nil || ctx.Value("k") != nil {
				t.Error("a record's context has an error or a value")
				return
			}
		}
	}()
	c.seal()
	c.done() // recycled
	for range 100 {
		d := newKafkaChunk()
		d.record()
		d.seal()
		d.done()
	}
	close(stop)
	<-asked
}
