package consumer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// tp names one partition of one topic.
type tp struct {
	topic     string
	partition int32
}

func (t tp) String() string { return fmt.Sprintf("%s/%d", t.topic, t.partition) }

// leaderBudget bounds how long a lookup that needs partition leaders
// (LIST_OFFSETS, metadata) keeps retrying through an election.
const leaderBudget = 30 * time.Second

// cluster is the consumer's view of the engine: node addresses, one
// control connection per node (metadata, LIST_OFFSETS, group requests),
// and the partition-leader table. Fetch connections are separate (each
// source owns its own) so that a long-poll never delays a heartbeat.
type cluster struct {
	opt   *Options
	seeds []string

	mu      sync.Mutex
	addrs   map[uint16]string      // node id → data address
	ctrl    map[uint16]*ilink.Conn // control connections by node id
	boot    *ilink.Conn            // a connection to any node
	leaders map[tp]uint16          // from the last metadata; 0 = no leader
	epochs  map[string]int32       // topic epochs seen
	closed  bool
}

func newCluster(opt *Options, seeds []string) *cluster {
	return &cluster{
		opt:     opt,
		seeds:   seeds,
		addrs:   map[uint16]string{},
		ctrl:    map[uint16]*ilink.Conn{},
		leaders: map[tp]uint16{},
		epochs:  map[string]int32{},
	}
}

func (cl *cluster) close() {
	cl.mu.Lock()
	cl.closed = true
	conns := make([]*ilink.Conn, 0, len(cl.ctrl)+1)
	for _, c := range cl.ctrl {
		conns = append(conns, c)
	}
	if cl.boot != nil {
		conns = append(conns, cl.boot)
	}
	cl.ctrl = map[uint16]*ilink.Conn{}
	cl.boot = nil
	cl.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

func (cl *cluster) learnNodes(nodes []wire.NodeInfo) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for _, n := range nodes {
		if n.Addr != "" {
			cl.addrs[n.ID] = n.Addr
		}
	}
}

// dial opens a consumer-mode connection and learns the node list of its
// HELLO (spec S-03).
func (cl *cluster) dial(ctx context.Context, addr string) (*ilink.Conn, error) {
	c, err := ilink.DialConn(ctx, addr, cl.opt.connConfig())
	if err != nil {
		return nil, err
	}
	h := c.Hello()
	cl.learnNodes(h.Nodes)
	cl.mu.Lock()
	if _, ok := cl.addrs[h.NodeID]; !ok {
		cl.addrs[h.NodeID] = addr
	}
	cl.mu.Unlock()
	return c, nil
}

// candidates lists the seeds, then every known node address.
func (cl *cluster) candidates() []string {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	out := slices.Clone(cl.seeds)
	ids := make([]uint16, 0, len(cl.addrs))
	for id := range cl.addrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if a := cl.addrs[id]; !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// anyConn returns a live connection to some node, dialling the candidates
// in order when the last one died.
func (cl *cluster) anyConn(ctx context.Context) (*ilink.Conn, error) {
	cl.mu.Lock()
	if cl.closed {
		cl.mu.Unlock()
		return nil, closedError()
	}
	if cl.boot != nil && cl.boot.Err() == nil {
		c := cl.boot
		cl.mu.Unlock()
		return c, nil
	}
	cl.mu.Unlock()
	var fails []string
	var last error
	for _, addr := range cl.candidates() {
		c, err := cl.dial(ctx, addr)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			last = err
			fails = append(fails, err.Error())
			continue
		}
		cl.mu.Lock()
		if cl.closed {
			cl.mu.Unlock()
			c.Close()
			return nil, closedError()
		}
		if cl.boot != nil && cl.boot.Err() == nil {
			old := cl.boot
			cl.mu.Unlock()
			c.Close()
			return old, nil
		}
		cl.boot = c
		cl.mu.Unlock()
		return c, nil
	}
	if e := ilink.AsError(last); e != nil && e.Kind != ilink.KindSession {
		return nil, last
	}
	return nil, &ilink.Error{Name: ilink.NameConnectFailed, Tail: "no node reachable: " + strings.Join(fails, "; "), Kind: ilink.KindSession}
}

// nodeConn returns the control connection to node id.
func (cl *cluster) nodeConn(ctx context.Context, id uint16) (*ilink.Conn, error) {
	cl.mu.Lock()
	if cl.closed {
		cl.mu.Unlock()
		return nil, closedError()
	}
	if c := cl.ctrl[id]; c != nil && c.Err() == nil {
		cl.mu.Unlock()
		return c, nil
	}
	addr, ok := cl.addrs[id]
	cl.mu.Unlock()
	if !ok {
		return nil, &ilink.Error{Name: ilink.NameConnectFailed, Tail: fmt.Sprintf("node %d: address unknown", id), Kind: ilink.KindSession}
	}
	return cl.connTo(ctx, id, addr)
}

// connTo returns the control connection to node id at addr (an address
// learned from a FIND COORDINATOR reply replaces an older one).
func (cl *cluster) connTo(ctx context.Context, id uint16, addr string) (*ilink.Conn, error) {
	cl.mu.Lock()
	if c := cl.ctrl[id]; c != nil && c.Err() == nil && c.Addr() == addr {
		cl.mu.Unlock()
		return c, nil
	}
	cl.mu.Unlock()
	c, err := cl.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.closed {
		c.Close()
		return nil, closedError()
	}
	if old := cl.ctrl[id]; old != nil && old.Err() == nil && old.Addr() == addr {
		c.Close()
		return old, nil
	} else if old != nil {
		old.Close()
	}
	cl.ctrl[id] = c
	cl.addrs[id] = addr
	return c, nil
}

// addrOf returns the data address of node id.
func (cl *cluster) addrOf(id uint16) (string, bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	a, ok := cl.addrs[id]
	return a, ok
}

// metadata asks any node for the leader tables of topics (nil = every
// topic) and records nodes and leaders. A connection that fails is
// replaced and the request retried on another node, a few times.
func (cl *cluster) metadata(ctx context.Context, topics []string) (*wire.MetadataReply, error) {
	req := &wire.MetadataRequest{Topics: topics}
	if topics != nil && len(topics) == 0 {
		req.Topics = []string{}
	}
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		c, err := cl.anyConn(ctx)
		if err != nil {
			return nil, err
		}
		var rep wire.MetadataReply
		err = c.Do(ctx, wire.CodeMetadata, 0, req, &rep)
		if err == nil {
			cl.record(&rep)
			return &rep, nil
		}
		last = err
		if !ilink.IsSessionError(err) {
			return nil, err
		}
		c.Close()
	}
	return nil, last
}

// record stores the nodes and the leader table of a metadata reply.
func (cl *cluster) record(rep *wire.MetadataReply) {
	cl.learnNodes(rep.Nodes)
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for i := range rep.Topics {
		t := &rep.Topics[i]
		if t.Err.Name != "" {
			continue
		}
		cl.epochs[t.Name] = t.Epoch
		for _, p := range t.Partitions {
			cl.leaders[tp{t.Name, p.ID}] = p.Leader
		}
	}
}

// leaderOf returns the leader recorded for t (0 = unknown / none).
func (cl *cluster) leaderOf(t tp) uint16 {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.leaders[t]
}

func (cl *cluster) setLeader(t tp, id uint16) {
	cl.mu.Lock()
	cl.leaders[t] = id
	cl.mu.Unlock()
}

// topicPartitions returns the partition ids of topic from a metadata
// reply, or the topic's error.
func topicPartitions(rep *wire.MetadataReply, topic string) ([]int32, error) {
	for i := range rep.Topics {
		t := &rep.Topics[i]
		if t.Name != topic {
			continue
		}
		if e := partError(t.Err); e != nil {
			return nil, e
		}
		ps := make([]int32, 0, len(t.Partitions))
		for _, p := range t.Partitions {
			ps = append(ps, p.ID)
		}
		slices.Sort(ps)
		return ps, nil
	}
	return nil, &ilink.Error{Name: wire.ErrUnknownTopic, Tail: topic, Kind: ilink.KindRejected}
}

// topicNames lists the topics of a metadata reply that exist.
func topicNames(rep *wire.MetadataReply) []string {
	out := make([]string, 0, len(rep.Topics))
	for i := range rep.Topics {
		if rep.Topics[i].Err.Name == "" {
			out = append(out, rep.Topics[i].Name)
		}
	}
	return out
}

// listOffsets resolves a LIST_OFFSETS timestamp (ms, or wire.ListLatest /
// wire.ListEarliest) per partition at the partitions' leaders (spec C-23),
// following leader moves through metadata until leaderBudget passes.
func (cl *cluster) listOffsets(ctx context.Context, want map[tp]int64) (map[tp]int64, error) {
	out := make(map[tp]int64, len(want))
	remaining := make(map[tp]int64, len(want))
	for k, v := range want {
		remaining[k] = v
	}
	deadline := cl.opt.now().Add(leaderBudget)
	backoff := 50 * time.Millisecond
	var last error
	for len(remaining) > 0 {
		topicSet := map[string]bool{}
		for t := range remaining {
			topicSet[t.topic] = true
		}
		topics := make([]string, 0, len(topicSet))
		for t := range topicSet {
			topics = append(topics, t)
		}
		slices.Sort(topics)
		md, err := cl.metadata(ctx, topics)
		if err != nil && !ilink.IsSessionError(err) {
			return nil, err
		}
		if err == nil {
			for i := range md.Topics {
				if e := partError(md.Topics[i].Err); e != nil && topicSet[md.Topics[i].Name] {
					return nil, e
				}
			}
			byLeader := map[uint16]*wire.ListOffsetsRequest{}
			for t, ts := range remaining {
				id := cl.leaderOf(t)
				if id == 0 {
					continue
				}
				r := byLeader[id]
				if r == nil {
					r = &wire.ListOffsetsRequest{}
					byLeader[id] = r
				}
				r.Topics = appendListPartition(r.Topics, t, ts)
			}
			for id, r := range byLeader {
				c, err := cl.nodeConn(ctx, id)
				if err != nil {
					last = err
					continue
				}
				var rep wire.ListOffsetsReply
				if err := c.Do(ctx, wire.CodeListOffsets, 0, r, &rep); err != nil {
					if !ilink.IsSessionError(err) {
						return nil, err
					}
					last = err
					continue
				}
				for _, rt := range rep.Topics {
					for _, rp := range rt.Partitions {
						k := tp{rt.Topic, rp.Partition}
						if _, ok := remaining[k]; !ok {
							continue
						}
						if e := partError(rp.Err); e != nil {
							if e.Name == wire.ErrUnknownTopic || e.Name == wire.ErrInvalidArgument {
								return nil, e
							}
							last = e
							if rp.LeaderHint != 0 {
								cl.setLeader(k, rp.LeaderHint)
							}
							continue
						}
						out[k] = rp.Offset
						delete(remaining, k)
					}
				}
			}
		} else {
			last = err
		}
		if len(remaining) == 0 {
			break
		}
		if cl.opt.now().After(deadline) {
			if last == nil {
				last = &ilink.Error{Name: wire.ErrNoLeader, Tail: "no leader for " + firstTP(remaining).String(), Kind: ilink.KindSession}
			}
			return nil, last
		}
		if err := cl.opt.sleep(ctx, backoff); err != nil {
			return nil, err
		}
		backoff = min(2*backoff, time.Second)
	}
	return out, nil
}

func firstTP(m map[tp]int64) tp {
	for k := range m {
		return k
	}
	return tp{}
}

func appendListPartition(ts []wire.ListOffsetsTopic, t tp, stamp int64) []wire.ListOffsetsTopic {
	for i := range ts {
		if ts[i].Topic == t.topic {
			ts[i].Partitions = append(ts[i].Partitions, wire.ListOffsetsPartition{Partition: t.partition, Timestamp: stamp})
			return ts
		}
	}
	return append(ts, wire.ListOffsetsTopic{Topic: t.topic, Partitions: []wire.ListOffsetsPartition{{Partition: t.partition, Timestamp: stamp}}})
}
