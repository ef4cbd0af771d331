package engine

import "ilinkdash/ilink/wire"

// Retention drops whole batches from the head of a log, which advances the
// log start offset. A batch is dropped when it is older than retention.ms
// (by the leader's append time, so producer clocks cannot expire records
// early) or while the log holds more than retention.bytes; in both cases
// only batches entirely below the high watermark, so retention never takes
// a record that is not yet committed. Each replica applies the rule to its
// own log. The byte bound is also applied right after every append, so a
// partition's memory stays bounded between sweeps.

// sweepRetention runs one retention pass over every running replica, with
// each topic's current bounds (AlterTopic takes effect at the next pass).
func (ts *topicStore) sweepRetention(nowMs int64) {
	for _, t := range ts.snap.Load().list {
		lay := t.layout()
		cfg := lay.cfg
		if cfg.retentionMs == 0 && cfg.retentionBytes == 0 {
			continue
		}
		for _, p := range lay.parts {
			p.mu.Lock()
			for _, r := range p.reps {
				if ts.isRunning(r.node) {
					trimLog(r.log, p.hw, nowMs, cfg.retentionMs, cfg.retentionBytes)
				}
			}
			p.mu.Unlock()
		}
	}
}

// trimLog drops head batches below hw that are older than retentionMs or
// beyond retentionBytes (0 = no limit).
func trimLog(l *partLog, hw, nowMs, retentionMs, retentionBytes int64) {
	es := l.live()
	n := 0
	bytes := l.bytes
	for n < len(es) && es[n].next <= hw {
		old := retentionMs > 0 && nowMs-es[n].appendMs > retentionMs
		big := retentionBytes > 0 && bytes > retentionBytes
		if !old && !big {
			break
		}
		bytes -= int64(len(es[n].b))
		n++
	}
	if n > 0 {
		l.dropHead(n)
	}
}

// trimBytes applies only the byte bound (after an append).
func trimBytes(l *partLog, hw, retentionBytes int64) {
	if l.bytes > retentionBytes {
		trimLog(l, hw, 0, 0, retentionBytes)
	}
}

// parseStored reads the header of a stored batch (validated when it was
// appended).
func parseStored(b []byte) (wire.BatchHeader, error) { return wire.ParseBatchHeader(b) }
