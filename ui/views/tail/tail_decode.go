package tail

import (
	"strings"
	"sync"

	"ilinkdash/ilink/schema"
	"ilinkdash/ui/components"
)

// Decoding (issue 25): a record of a topic whose decode rule gives its key
// or value a codec is decoded once, on the way in, by the goroutine of a
// decodedStream between the stream and the view (never in Update or
// View): its JSON document (or the codec's error) travels with the record
// (Record.KeyDecoded, ValueDecoded, KeyError, ValueError), is kept with
// the entry and counts against the buffer's byte bound (sizeOf). The
// search beyond the buffer decodes its matches the same way.

// recordDecoder decodes records by their topic's rule, the rule of each
// topic looked up once.
type recordDecoder struct {
	set   *schema.Set
	pairs map[string]schema.Pair
}

func newRecordDecoder(set *schema.Set) *recordDecoder {
	return &recordDecoder{set: set, pairs: map[string]schema.Pair{}}
}

// pair is the rule of topic (cached, within the interner's bound).
func (d *recordDecoder) pair(topic string) schema.Pair {
	p, ok := d.pairs[topic]
	if !ok {
		p = d.set.Topic(topic)
		if len(d.pairs) < maxInterned {
			d.pairs[topic] = p
		}
	}
	return p
}

// decode sets r's decoded key and value (or their errors).
func (d *recordDecoder) decode(r *Record) { r.Decode(d.pair(r.Topic)) }

// relay hands what arrives on in on to out, through each (on the relay's
// goroutine), until in closes or stop; out is then closed.
type relay[T any] struct {
	out  chan T
	done chan struct{}
	once sync.Once
}

func startRelay[T any](in <-chan T, size int, each func(*T)) *relay[T] {
	r := &relay[T]{out: make(chan T, size), done: make(chan struct{})}
	go func() {
		defer close(r.out)
		for {
			var x T
			var ok bool
			select {
			case x, ok = <-in:
				if !ok {
					return
				}
			case <-r.done:
				return
			}
			each(&x)
			select {
			case r.out <- x:
			case <-r.done:
				return
			}
		}
	}()
	return r
}

func (r *relay[T]) stop() { r.once.Do(func() { close(r.done) }) }

// decodedStream is a Stream whose batches arrive decoded: a relay reads
// the stream's channel, decodes each record and hands the batch on (a
// channel of one batch: it holds at most that and the batch it decodes
// beyond the stream's own bound, and a full one back-pressures the stream
// as before; Close stops it).
type decodedStream struct {
	Stream
	r *relay[Batch]
}

// decodeStream wraps s when set has rules; else it is s.
func decodeStream(s Stream, set *schema.Set) Stream {
	if s == nil || set.Len() == 0 {
		return s
	}
	dec := newRecordDecoder(set)
	return &decodedStream{Stream: s, r: startRelay(s.Records(), 1, func(b *Batch) {
		for i := range b.Records {
			dec.decode(&b.Records[i])
		}
	})}
}

func (d *decodedStream) Records() <-chan Batch { return d.r.out }

func (d *decodedStream) Close() error {
	d.r.stop()
	return d.Stream.Close()
}

// decodedSearch is a SearchRun whose matches arrive decoded.
type decodedSearch struct {
	SearchRun
	r *relay[Record]
}

// decodeSearch wraps r when set has rules; else it is r.
func decodeSearch(r SearchRun, set *schema.Set) SearchRun {
	if r == nil || set.Len() == 0 {
		return r
	}
	return &decodedSearch{SearchRun: r, r: startRelay(r.Records(), 64, newRecordDecoder(set).decode)}
}

func (d *decodedSearch) Records() <-chan Record { return d.r.out }

func (d *decodedSearch) Cancel() {
	d.r.stop()
	d.SearchRun.Cancel()
}

// decodes reports whether records of topic have a schema for the key or
// the value (the decoded format is then offered, and the default).
func (v *View) decodes(topic string) bool { return v.Ctx.Schemas.Topic(topic).Decodes() }

// decodedValue is the entry's value as its schema decoded it (the zero
// Decoded when its topic has no value codec).
func (v *View) decodedValue(e *tailEntry) components.Decoded {
	c := v.Ctx.Schemas.Topic(e.topic).Value.Codec
	if c == nil {
		return components.Decoded{}
	}
	return components.Decoded{Schema: c.Name(), Doc: e.vd, Err: e.verr}
}

// decodedKey is the entry's key as its schema decoded it.
func (v *View) decodedKey(e *tailEntry) components.Decoded {
	c := v.Ctx.Schemas.Topic(e.topic).Key.Codec
	if c == nil {
		return components.Decoded{}
	}
	return components.Decoded{Schema: c.Name(), Doc: e.kd, Err: e.kerr}
}

// cycleFormat moves f on from the format the record in the detail shows
// (the tailed topic's when there is none): decoded is in the cycle when
// that record's topic has a schema.
func (v *View) cycleFormat() {
	topic, format := v.spec.Target, v.format
	if e, _, ok := v.pinned(); ok {
		topic, format = e.topic, v.formatOf(e)
	}
	v.format = components.NextFormat(format, v.decodes(topic))
}

// defaultFormat is the format a new tail opens in: decoded when a rule
// gives the target (a topic, or any topic when it is a pattern) a codec;
// json or hex when the topic's rule says its values show so (value: hex).
func (v *View) defaultFormat(target string) int {
	if !strings.ContainsAny(target, "*?") {
		switch v.Ctx.Schemas.Topic(target).Value.Format {
		case schema.KindJSON:
			return components.FormatJSON
		case schema.KindHex:
			return components.FormatHex
		}
	}
	return components.DefaultFormat(v.decodes(target) || (v.Ctx.Schemas.Len() > 0 && strings.ContainsAny(target, "*?")))
}
