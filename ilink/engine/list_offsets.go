package engine

import (
	"encoding/binary"
	"fmt"

	"ilinkdash/ilink/wire"
)

// LIST_OFFSETS (time → offset, spec C-23): from partition leaders, like
// FETCH (admin connections are served wherever the leader is). Latest is
// the high watermark, earliest the log start; a time gives the first
// committed record whose timestamp is at or after it, or the high
// watermark when there is none.
func init() {
	register(wire.CodeListOffsets, route{fn: handleListOffsets, modes: listOffsetsModes})
}

var listOffsetsModes = []wire.SessionMode{wire.ModeConsumer, wire.ModeProducer, wire.ModeAdmin}

// batchOffMaxTimestamp is where a batch header keeps its largest record
// timestamp (docs/PROTOCOL.md, "Record batches").
const batchOffMaxTimestamp = 35

func handleListOffsets(r *request) {
	var req wire.ListOffsetsRequest
	if !r.decode(&req) || !topicSessionOK(r, true) {
		return
	}
	ts := r.c.e.topics
	node, forwarded := r.c.nodeID(), r.c.sess.mode == wire.ModeAdmin
	rep := &wire.ListOffsetsReply{Topics: make([]wire.ListOffsetsTopicResult, len(req.Topics))}
	for i := range req.Topics {
		lt := &req.Topics[i]
		tr := &rep.Topics[i]
		tr.Topic = lt.Topic
		tr.Partitions = make([]wire.ListOffsetsPartitionResult, len(lt.Partitions))
		t := ts.lookup(lt.Topic)
		for j, lp := range lt.Partitions {
			res := &tr.Partitions[j]
			res.Partition, res.Offset, res.Timestamp = lp.Partition, -1, -1
			p, perr := partitionOf(t, lt.Topic, lp.Partition)
			switch {
			case perr.Name != "":
				res.Err = perr
			case lp.Timestamp < 0 && lp.Timestamp != wire.ListLatest && lp.Timestamp != wire.ListEarliest:
				res.Err = wire.PartError{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("timestamp %d", lp.Timestamp)}
			default:
				ts.listOffset(p, node, forwarded, lp.Timestamp, r.c.e.cfg.MaxFrame, res)
			}
		}
	}
	r.reply(rep)
}

func (ts *topicStore) listOffset(p *partition, node int, forwarded bool, when int64, maxDecomp int, res *wire.ListOffsetsPartitionResult) {
	p.mu.Lock()
	switch {
	case p.deleted:
		res.Err = wire.PartError{Name: wire.ErrUnknownTopic, Tail: p.t.name}
	case p.leader == 0:
		res.Err = wire.PartError{Name: wire.ErrFollowerNode, Tail: fmt.Sprintf("%s/%d has no leader", p.t.name, p.id)}
	case !forwarded && p.leader != node:
		res.Err = wire.PartError{Name: wire.ErrFollowerNode, Tail: fmt.Sprintf("node %d does not lead %s/%d; node %d does", node, p.t.name, p.id, p.leader)}
		res.LeaderHint = uint16(p.leader)
	}
	if res.Err.Name != "" {
		p.mu.Unlock()
		return
	}
	L := p.rep(p.leader).log
	hw := p.hw
	switch when {
	case wire.ListLatest:
		res.Offset = hw
		p.mu.Unlock()
		return
	case wire.ListEarliest:
		res.Offset = L.start
		p.mu.Unlock()
		return
	}
	// Candidates: committed batches whose largest timestamp reaches the
	// time. Stored batches are immutable, so they are decoded unlocked.
	var cands [][]byte
	for _, en := range L.live() {
		if en.next > hw {
			break
		}
		if int64(binary.BigEndian.Uint64(en.b[batchOffMaxTimestamp:])) >= when {
			cands = append(cands, en.b)
		}
	}
	p.mu.Unlock()
	res.Offset = hw
	var recs []wire.Record
	for _, b := range cands {
		var err error
		recs, err = wire.DecodeBatch(b, maxDecomp, recs[:0])
		if err != nil {
			continue
		}
		for _, rec := range recs {
			if rec.Timestamp >= when {
				res.Offset, res.Timestamp = rec.Offset, rec.Timestamp
				return
			}
		}
	}
}
