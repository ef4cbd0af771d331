package history

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A chunk is one series' points over one chunk period of a tier (its
// slots: 90 steps, 15 minutes of 10 s points; 60, an hour of 1 min
// points), as integers (the value times the kind's scale) at step slots
// 0..slots-1:
//
//	uvarint(first slot) varint(first value)
//	then ops, each one uvarint x:
//	  x&1 == 0  one point at the next slot, value += unzigzag(x>>1)
//	  x&3 == 1  x>>2 + 1 more points at the next slots, each adding the last delta again
//	  x&3 == 3  the next point is x>>2 + 2 slots on instead of 1 (a gap)
//
// A point whose delta is small (±31) costs one byte; a steady series (a
// stopped group's constant lag, a linear growth) costs a few bytes an
// hour, its points one run.

// maxSlots bounds the steps a chunk covers (the tiers' slots).
const maxSlots = 360

// maxValue bounds what a point holds, so a delta's zigzag shifted by the
// tag bit never overflows.
const maxValue = 1 << 60

var errChunk = errors.New("corrupt history chunk")

// enc builds one chunk. The run being counted is not in buf yet: bytes
// appends it, so a longer run rewrites nothing.
type enc struct {
	buf   []byte
	n     int   // points
	slot  int   // the last point's slot
	val   int64 // the last point's value
	delta int64 // the last delta
	run   int   // points of the pending run
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

func clampValue(v int64) int64 { return max(-maxValue, min(v, maxValue)) }

// add appends a point; slots must increase (others are ignored).
func (e *enc) add(slot int, v int64) {
	v = clampValue(v)
	if e.n == 0 {
		e.buf = binary.AppendUvarint(e.buf[:0], uint64(slot))
		e.buf = binary.AppendVarint(e.buf, v)
		e.n, e.slot, e.val, e.delta, e.run = 1, slot, v, 0, 0
		return
	}
	if slot <= e.slot {
		return
	}
	d := v - e.val
	if slot == e.slot+1 && d == e.delta {
		e.run++
	} else {
		e.flushRun()
		if gap := slot - e.slot; gap > 1 {
			e.buf = binary.AppendUvarint(e.buf, uint64(gap-2)<<2|3)
		}
		e.buf = binary.AppendUvarint(e.buf, zigzag(d)<<1)
		e.delta = d
	}
	e.n++
	e.slot, e.val = slot, v
}

func (e *enc) flushRun() {
	if e.run > 0 {
		e.buf = binary.AppendUvarint(e.buf, uint64(e.run-1)<<2|1)
		e.run = 0
	}
}

// bytes is the chunk as stored.
func (e *enc) bytes() []byte {
	out := make([]byte, 0, len(e.buf)+binary.MaxVarintLen32)
	out = append(out, e.buf...)
	if e.run > 0 {
		out = binary.AppendUvarint(out, uint64(e.run-1)<<2|1)
	}
	return out
}

// decodeChunk calls fn for every point of b, a chunk of slots steps, in
// order, and returns the encoder that continues it (a trailing run is counted again, not
// written). A chunk that does not parse, or leaves its slots, is
// errChunk: its points so far were given.
func decodeChunk(b []byte, slots int, fn func(slot int, v int64)) (enc, error) {
	var e enc
	first, n := binary.Uvarint(b)
	if n <= 0 || first >= uint64(slots) {
		return enc{}, errChunk
	}
	v, m := binary.Varint(b[n:])
	if m <= 0 || v > maxValue || v < -maxValue {
		return enc{}, errChunk
	}
	i := n + m
	e = enc{n: 1, slot: int(first), val: v}
	fn(e.slot, e.val)
	gap, lastRun := 1, -1
	for i < len(b) {
		x, k := binary.Uvarint(b[i:])
		if k <= 0 {
			return enc{}, errChunk
		}
		lastRun = -1
		switch {
		case x&1 == 0:
			e.delta = unzigzag(x >> 1)
			if err := e.step(gap, slots, fn); err != nil {
				return enc{}, err
			}
			gap = 1
		case x&3 == 1:
			if gap != 1 || x>>2 >= uint64(slots) {
				return enc{}, errChunk
			}
			for range x>>2 + 1 {
				if err := e.step(1, slots, fn); err != nil {
					return enc{}, err
				}
			}
			lastRun = i
		default:
			if x>>2 >= uint64(slots) {
				return enc{}, errChunk
			}
			gap = int(x>>2) + 2
		}
		i += k
	}
	e.buf = append([]byte(nil), b...)
	if lastRun >= 0 {
		x, _ := binary.Uvarint(b[lastRun:])
		e.buf, e.run = e.buf[:lastRun], int(x>>2)+1
	}
	return e, nil
}

// step is one decoded point gap slots on, adding the last delta.
func (e *enc) step(gap, slots int, fn func(int, int64)) error {
	nv := e.val + e.delta
	if e.slot+gap >= slots || nv > maxValue || nv < -maxValue {
		return fmt.Errorf("%w: slot %d", errChunk, e.slot+gap)
	}
	e.slot += gap
	e.val = nv
	e.n++
	fn(e.slot, e.val)
	return nil
}
