package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// Traffic statistics for the views: records and bytes in (appended by
// leaders, duplicates excluded) and out (returned to consumers by FETCH) per
// second, for the last 15 minutes, per topic and for the whole queue
// manager. The produce path pays two atomic adds per ring.

// StatSeconds is the length of a stat series: 15 minutes at 1 s.
const StatSeconds = 900

// StatPoint is one second of traffic.
type StatPoint struct {
	Time       time.Time // start of the second
	RecordsIn  int64
	BytesIn    int64
	RecordsOut int64
	BytesOut   int64
}

type statBucket struct {
	sec                              atomic.Int64 // unix second the counters belong to
	recIn, bytesIn, recOut, bytesOut atomic.Int64
}

// statRing is a ring of one-second buckets indexed by unix second.
type statRing struct {
	mu sync.Mutex // taken only to roll a bucket over to a new second
	b  [StatSeconds]statBucket
}

func newStatRing() *statRing { return &statRing{} }

func (s *statRing) bucket(sec int64) *statBucket {
	b := &s.b[sec%StatSeconds]
	if b.sec.Load() != sec {
		s.mu.Lock()
		if b.sec.Load() != sec {
			b.recIn.Store(0)
			b.bytesIn.Store(0)
			b.recOut.Store(0)
			b.bytesOut.Store(0)
			b.sec.Store(sec)
		}
		s.mu.Unlock()
	}
	return b
}

func (s *statRing) addIn(sec, records, bytes int64) {
	b := s.bucket(sec)
	b.recIn.Add(records)
	b.bytesIn.Add(bytes)
}

func (s *statRing) addOut(sec, records, bytes int64) {
	b := s.bucket(sec)
	b.recOut.Add(records)
	b.bytesOut.Add(bytes)
}

// series returns the StatSeconds seconds ending with now's (which is still
// counting), oldest first.
func (s *statRing) series(now time.Time) []StatPoint {
	last := now.Unix()
	out := make([]StatPoint, StatSeconds)
	for i := range out {
		sec := last - StatSeconds + 1 + int64(i)
		out[i].Time = time.Unix(sec, 0)
		b := &s.b[sec%StatSeconds]
		if b.sec.Load() == sec {
			out[i].RecordsIn = b.recIn.Load()
			out[i].BytesIn = b.bytesIn.Load()
			out[i].RecordsOut = b.recOut.Load()
			out[i].BytesOut = b.bytesOut.Load()
		}
	}
	return out
}

// StatSeries returns a topic's traffic per second for the last 15 minutes
// (StatSeconds points, oldest first, the last one the current second);
// topic "" is the whole queue manager. nil for an unknown topic.
func (e *Engine) StatSeries(topic string) []StatPoint {
	if topic == "" {
		return e.topics.qmStats.series(time.Now())
	}
	t := e.topics.lookup(topic)
	if t == nil {
		return nil
	}
	return t.stats.series(time.Now())
}
