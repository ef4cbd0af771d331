package admin

import (
	"context"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// Cluster definition calls (spec §3.8). Every change carries the version
// it was read at; the engine commits it through its controller. Errors to
// expect:
//
//   - MIMQE_INVALID_PROPERTY (REPLICAS <r> exceeds <n> data nodes) (K-03);
//   - MIMQE_CLUSTER_DEF_MOVED: the definition moved since it was read (K-15);
//   - MIMQE_CLUSTER_NOT_COMMITTED with one of three tails (K-12..K-14):
//     (not committed - retry): submitted, may still commit — re-read;
//     (outcome unknown - check VIEW CLUSTER): the answer was lost — re-read;
//     (earlier change still pending - retry): not submitted — resend as is.
//     After the first two, resending exactly the version read is safe
//     (K-16): if the first attempt committed, the resend gets DEF_MOVED.
//   - MIMQE_INVALID_PROPERTY (qmgr or address is node N's): AddNode run
//     again after it committed (K-17).

func clusterProperty(r *wire.ClusterPropertyReply) ClusterProperty {
	p := ClusterProperty{
		Name: r.Name, IlccPort: r.IlccPort, Version: r.Version, Replicas: r.Replicas, MinSync: r.MinSync,
		Placement: r.Placement, AutoStart: r.AutoStart, Nodes: make([]ClusterNode, len(r.Nodes)),
	}
	for i, n := range r.Nodes {
		p.Nodes[i] = ClusterNode{Number: n.Number, QueueManager: n.QueueManager, Host: n.Host, Port: n.Port, IlccPort: n.IlccPort}
	}
	return p
}

func nodeEntry(n ClusterNode) wire.ClusterNodeEntry {
	return wire.ClusterNodeEntry{Number: n.Number, QueueManager: n.QueueManager, Host: n.Host, Port: n.Port, IlccPort: n.IlccPort}
}

// ClusterProperty is getClusterProperty: the committed definition with its
// version ("" = this service's cluster) (K-01).
func (s *Service) ClusterProperty(ctx context.Context, cluster string) (ClusterProperty, error) {
	var rep wire.ClusterPropertyReply
	if err := s.read(ctx, wire.CodeClusterProperty, &wire.ClusterRequest{Cluster: cluster}, &rep); err != nil {
		return ClusterProperty{}, err
	}
	return clusterProperty(&rep), nil
}

func intField(p *int) int32 {
	if p == nil {
		return wire.IntBlank
	}
	return int32(*p)
}

func flagField(p *bool) uint8 {
	switch {
	case p == nil:
		return wire.FlagBlank
	case *p:
		return wire.FlagOn
	}
	return wire.FlagOff
}

// SetClusterProperty is setClusterProperty: nil fields are blank (left as
// is, K-06), a pointer to 0 clears Replicas or MinSync (K-04, K-05). The
// change applies to ch.BaseVersion. It returns the committed definition.
func (s *Service) SetClusterProperty(ctx context.Context, cluster string, ch ClusterPropertyChange) (ClusterProperty, error) {
	if err := s.mutate("SetClusterProperty"); err != nil {
		return ClusterProperty{}, err
	}
	for _, v := range []*int{ch.Replicas, ch.MinSync} {
		if v != nil && *v < 0 {
			return ClusterProperty{}, &ilink.Error{Name: ilink.NameBadConfig, Tail: "negative replicas or minSync (use 0 to clear)", Kind: ilink.KindConfig}
		}
	}
	req := &wire.SetClusterPropertyRequest{
		Cluster: cluster, BaseVersion: ch.BaseVersion,
		Replicas: intField(ch.Replicas), MinSync: intField(ch.MinSync),
		Placement: flagField(ch.Placement), AutoStart: flagField(ch.AutoStart),
	}
	var rep wire.ClusterPropertyReply
	if err := s.write(ctx, wire.CodeSetClusterProperty, req, &rep); err != nil {
		return ClusterProperty{}, err
	}
	return clusterProperty(&rep), nil
}

// rmwTries bounds the read-modify-write helpers' retries after another
// change moved the definition between their read and their write.
const rmwTries = 3

// AddNode is addNode: a read-modify-write of the definition (read the
// version, send ADD NODE at it). node.Number 0 takes the next number.
// With PLACEMENT on replicas is unchanged (K-07), with it off it grows by
// one (K-09). Run again after it committed it is refused with
// (qmgr or address is node N's) and adds no duplicate (K-17).
func (s *Service) AddNode(ctx context.Context, cluster string, node ClusterNode) (ClusterProperty, error) {
	if err := s.mutate("AddNode"); err != nil {
		return ClusterProperty{}, err
	}
	return s.rmw(ctx, cluster, func(v int64) (wire.Code, wire.Message) {
		return wire.CodeAddNode, &wire.ClusterNodeRequest{Cluster: cluster, BaseVersion: v, Node: nodeEntry(node)}
	})
}

// RemoveNode is removeNode: a read-modify-write removing node number n.
// With PLACEMENT on replicas is kept unless it now exceeds the remaining
// nodes (K-08); with it off it shrinks by one (K-10).
func (s *Service) RemoveNode(ctx context.Context, cluster string, number int) (ClusterProperty, error) {
	if err := s.mutate("RemoveNode"); err != nil {
		return ClusterProperty{}, err
	}
	return s.rmw(ctx, cluster, func(v int64) (wire.Code, wire.Message) {
		return wire.CodeRemoveNode, &wire.RemoveNodeRequest{Cluster: cluster, BaseVersion: v, Number: number}
	})
}

func (s *Service) rmw(ctx context.Context, cluster string, build func(version int64) (wire.Code, wire.Message)) (ClusterProperty, error) {
	var err error
	for try := 0; try < rmwTries; try++ {
		var cur ClusterProperty
		if cur, err = s.ClusterProperty(ctx, cluster); err != nil {
			return ClusterProperty{}, err
		}
		code, req := build(cur.Version)
		var rep wire.ClusterPropertyReply
		err = s.write(ctx, code, req, &rep)
		if err == nil {
			return clusterProperty(&rep), nil
		}
		if !ilink.HasName(err, wire.ErrClusterDefMoved) {
			return ClusterProperty{}, err
		}
	}
	return ClusterProperty{}, err
}

// CreateCluster is createCluster(def): a new definition (def.Version is
// ignored), committed by the controller like any change.
func (s *Service) CreateCluster(ctx context.Context, def ClusterProperty) (ClusterProperty, error) {
	if err := s.mutate("CreateCluster"); err != nil {
		return ClusterProperty{}, err
	}
	w := wire.ClusterPropertyReply{Name: def.Name, IlccPort: def.IlccPort, Replicas: def.Replicas, MinSync: def.MinSync,
		Placement: def.Placement, AutoStart: def.AutoStart}
	for _, n := range def.Nodes {
		w.Nodes = append(w.Nodes, nodeEntry(n))
	}
	var rep wire.ClusterPropertyReply
	if err := s.write(ctx, wire.CodeCreateCluster, &wire.CreateClusterRequest{Definition: w}, &rep); err != nil {
		return ClusterProperty{}, err
	}
	return clusterProperty(&rep), nil
}

// JoinCluster is joinCluster: node joins cluster. It may be called right
// after CreateCluster without waiting (K-18); with the controller
// unreachable the engine retries for about 15 s and answers
// MIMQE_CLUSTER_UNREACHABLE (K-19).
func (s *Service) JoinCluster(ctx context.Context, cluster string, node ClusterNode) (ClusterProperty, error) {
	if err := s.mutate("JoinCluster"); err != nil {
		return ClusterProperty{}, err
	}
	var rep wire.ClusterPropertyReply
	if err := s.write(ctx, wire.CodeJoinCluster, &wire.ClusterNodeRequest{Cluster: cluster, Node: nodeEntry(node)}, &rep); err != nil {
		return ClusterProperty{}, err
	}
	return clusterProperty(&rep), nil
}
