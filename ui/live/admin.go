// Package live adapts the real iLink client to the dashboard's view
// interfaces (ui/views/tab, tail, publish): the admin client for the
// polled lists and actions, consumer v2 for the tail, the
// multi-connection producer for publish. The views never see a
// connection; this package is the only place that does.
package live

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ui/views/publish"
	"ilinkdash/ui/views/tab"
	"ilinkdash/ui/views/tail"
)

// Config says where the cluster is.
type Config struct {
	AdminAddrs   []string // admin listeners, tried in order
	DataAddrs    []string // data listeners (tail, publish, group calls)
	QueueManager string   // "" = the one the admin service reports
	ClientName   string
	ReadOnly     bool
	// Hub with Spoke or SpokeKey: the cluster is a spoke reached through
	// the hub's admin address, every connection switched there
	// (ilink.HubRoute); AdminAddrs and DataAddrs are then left empty.
	Hub, Spoke, SpokeKey string
	Logf                 func(format string, args ...any)
}

// Sources implements tab.Sources, tail.Tailer and publish.Publisher over
// one admin service connection that it re-opens by itself after a failure.
type Sources struct {
	cfg Config

	hub *ilink.HubRoute // a spoke's route, shared by all its connections; nil = direct

	mu  sync.Mutex
	svc *admin.Service
	// known are every admin address learned so far (configured first, then
	// the node list of the handshake), so a dead node is not the end.
	known []string
}

var (
	_ tab.Sources       = (*Sources)(nil)
	_ tail.Tailer       = (*Sources)(nil)
	_ publish.Publisher = (*Sources)(nil)
)

// New returns adapters for cfg; nothing is dialled until the first call.
func New(cfg Config) (*Sources, error) {
	var hub *ilink.HubRoute
	if cfg.Hub != "" {
		var err error
		if hub, err = ilink.NewHubRoute(cfg.Hub, cfg.Spoke, cfg.SpokeKey); err != nil {
			return nil, err
		}
		// The hub's address seeds every connection; the spoke's node
		// addresses learned from its handshakes map to switches there.
		cfg.AdminAddrs, cfg.DataAddrs = []string{cfg.Hub}, []string{cfg.Hub}
	}
	if len(cfg.AdminAddrs) == 0 {
		return nil, errors.New("live: no admin address configured (set --admin or the context's admin)")
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "ilinkdash"
	}
	return &Sources{cfg: cfg, hub: hub, known: append([]string(nil), cfg.AdminAddrs...)}, nil
}

// Target is where the adapters connect: the configured admin addresses
// (the dashboard says "connecting to …" and "cannot reach …" with it).
func (s *Sources) Target() string {
	if s.hub != nil {
		return s.hub.Target()
	}
	return strings.Join(s.cfg.AdminAddrs, ",")
}

// Close closes the admin connection.
func (s *Sources) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.svc != nil {
		err := s.svc.Close()
		s.svc = nil
		return err
	}
	return nil
}

func (s *Sources) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// service returns the admin service over the known addresses. It is made
// without a connection (admin.New): the first call dials the addresses in
// turn, so a mutating call of a read-only context is refused by the admin
// client's own choke point before anything is dialled.
func (s *Sources) service() (*admin.Service, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.svc != nil {
		return s.svc, nil
	}
	opt := admin.Options{
		ClientName: s.cfg.ClientName,
		ReadOnly:   s.cfg.ReadOnly,
		DataAddrs:  s.cfg.DataAddrs,
		Logf:       s.cfg.Logf,
		// A stopped node's queue manager answers nothing the dashboard
		// shows: follow the cluster to another node (and say so).
		LeaveStoppedNode: true,
	}
	var svc *admin.Service
	var err error
	if s.hub != nil {
		opt.DataAddrs, opt.Hub = nil, s.hub // learned from the spoke's handshake, reached through the hub
		svc, err = admin.NewSpoke(s.hub.Addr, s.hub.Spoke, s.hub.Key, opt)
	} else {
		svc, err = admin.New(strings.Join(s.known, ","), opt)
	}
	if err != nil {
		return nil, err
	}
	s.svc = svc
	return svc, nil
}

// check learns the admin addresses of svc's handshake. The service itself
// fails over to another known admin address when its node goes away (and
// records it: AdminFailovers), so it is kept across failures:
// the dashboard recovers by itself. A failure before any handshake means
// no admin address answered.
func (s *Sources) check(svc *admin.Service, err error) error {
	h := svc.Hello()
	s.mu.Lock()
	for _, n := range h.Nodes {
		if n.Admin != "" && !contains(s.known, n.Admin) {
			s.known = append(s.known, n.Admin)
		}
	}
	s.mu.Unlock()
	if err == nil || !ilink.IsSessionError(err) {
		return err
	}
	if h.NodeID == 0 {
		s.logf("live: admin: %v", err)
		return fmt.Errorf("no admin address answered: %w", err)
	}
	return err
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// withQmgr runs fn on the configured queue manager's handle ("" = the
// service's own) and checks its error, as withService does.
func withQmgr[T any](s *Sources, ctx context.Context, fn func(*admin.Qmgr) (T, error)) (T, error) {
	return withService(s, ctx, func(svc *admin.Service) (T, error) {
		return fn(svc.AccessAdminQmgr(s.cfg.QueueManager))
	})
}

// withService runs fn on the service connection and checks its error.
func withService[T any](s *Sources, ctx context.Context, fn func(*admin.Service) (T, error)) (T, error) {
	svc, err := s.service()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := fn(svc)
	return v, s.check(svc, err)
}

// AdminFailovers are the admin client's latest switches to another node's
// admin address, oldest first: the dashboard says
// each one once, in the status line and the overview's events.
func (s *Sources) AdminFailovers() []admin.Failover {
	s.mu.Lock()
	svc := s.svc
	s.mu.Unlock()
	if svc == nil {
		return nil
	}
	return svc.Failovers()
}

// ClusterSummary implements tab.SummarySource.
func (s *Sources) ClusterSummary(ctx context.Context) (tab.ClusterSummary, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (tab.ClusterSummary, error) {
		nodes, err := q.Nodes(ctx)
		if err != nil {
			return tab.ClusterSummary{}, err
		}
		svc := q.Service()
		sum := tab.ClusterSummary{
			Cluster:       svc.Cluster(),
			QueueManager:  q.Name(),
			EngineVersion: svc.EngineVersion(),
			Nodes:         nodes,
		}
		for _, n := range nodes {
			if n.Role == admin.RoleLeader {
				sum.Leader = n.ID
			}
		}
		return sum, nil
	})
}

// StatSeries implements tab.StatsSource.
func (s *Sources) StatSeries(ctx context.Context, scope string) (admin.StatSeries, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.StatSeries, error) { return q.StatSeries(ctx, scope) })
}

// ListTopics implements tab.TopicLister.
func (s *Sources) ListTopics(ctx context.Context) ([]admin.TopicInfo, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) ([]admin.TopicInfo, error) { return q.Topics(ctx) })
}

// DescribeTopic implements tab.TopicAdmin.
func (s *Sources) DescribeTopic(ctx context.Context, topic string) (admin.TopicDescription, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.TopicDescription, error) { return q.DescribeTopic(ctx, topic) })
}

// SubscriptionList implements tab.TopicAdmin.
func (s *Sources) SubscriptionList(ctx context.Context, topic string) ([]admin.SubscriptionLine, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) ([]admin.SubscriptionLine, error) { return q.SubscriptionList(ctx, topic) })
}

// topicProps renders a create-topic spec as iLink's property string:
// the text its review showed (TopicSpec.Props).
func topicProps(spec tab.TopicSpec) string { return spec.Props() }

// CreateTopic implements tab.TopicAdmin.
func (s *Sources) CreateTopic(ctx context.Context, spec tab.TopicSpec) error {
	_, err := withQmgr(s, ctx, func(q *admin.Qmgr) (struct{}, error) {
		return struct{}{}, q.CreateTopic(ctx, spec.Name, topicProps(spec))
	})
	return err
}

// DeleteTopic implements tab.TopicAdmin.
func (s *Sources) DeleteTopic(ctx context.Context, topic string) error {
	_, err := withQmgr(s, ctx, func(q *admin.Qmgr) (struct{}, error) { return struct{}{}, q.DeleteTopic(ctx, topic) })
	return err
}

// FlushTopic implements tab.TopicAdmin.
func (s *Sources) FlushTopic(ctx context.Context, topic string) error {
	_, err := withQmgr(s, ctx, func(q *admin.Qmgr) (struct{}, error) { return struct{}{}, q.FlushTopic(ctx, topic) })
	return err
}

// ListGroups implements tab.GroupLister.
func (s *Sources) ListGroups(ctx context.Context) ([]admin.GroupInfo, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) ([]admin.GroupInfo, error) { return q.GroupList(ctx) })
}

// DescribeGroup implements tab.GroupAdmin.
func (s *Sources) DescribeGroup(ctx context.Context, group string) (admin.GroupDescription, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.GroupDescription, error) { return q.DescribeGroup(ctx, group) })
}

// SeekGroup implements tab.GroupAdmin: apply=false plans only.
func (s *Sources) SeekGroup(ctx context.Context, group, topic string, to admin.SeekTarget, apply bool) ([]admin.OffsetChange, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) ([]admin.OffsetChange, error) {
		if !apply {
			return q.PlanSeekGroup(ctx, group, topic, to)
		}
		return q.SeekGroup(ctx, group, topic, to)
	})
}

// SeekGroupToTime implements tab.GroupAdmin: the plan is the engine's
// dry run of the same time seek, so the preview shows what applying does.
func (s *Sources) SeekGroupToTime(ctx context.Context, group, topic string, t time.Time, apply bool) ([]admin.OffsetChange, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) ([]admin.OffsetChange, error) {
		if !apply {
			return q.PlanSeekGroup(ctx, group, topic, admin.SeekTarget{Time: t})
		}
		return q.SeekGroupToTime(ctx, group, topic, t)
	})
}

// DeleteGroup implements tab.GroupAdmin.
func (s *Sources) DeleteGroup(ctx context.Context, group string) error {
	_, err := withQmgr(s, ctx, func(q *admin.Qmgr) (struct{}, error) { return struct{}{}, q.DeleteGroup(ctx, group) })
	return err
}

// ClusterProperty implements tab.ClusterAdmin.
func (s *Sources) ClusterProperty(ctx context.Context) (admin.ClusterProperty, error) {
	return withService(s, ctx, func(svc *admin.Service) (admin.ClusterProperty, error) { return svc.ClusterProperty(ctx, "") })
}

// SetClusterProperty implements tab.ClusterAdmin.
func (s *Sources) SetClusterProperty(ctx context.Context, change admin.ClusterPropertyChange) error {
	_, err := withService(s, ctx, func(svc *admin.Service) (admin.ClusterProperty, error) {
		return svc.SetClusterProperty(ctx, "", change)
	})
	return err
}

// AddNode implements tab.ClusterAdmin.
func (s *Sources) AddNode(ctx context.Context, node admin.ClusterNode) error {
	_, err := withService(s, ctx, func(svc *admin.Service) (admin.ClusterProperty, error) { return svc.AddNode(ctx, "", node) })
	return err
}

// RemoveNode implements tab.ClusterAdmin.
func (s *Sources) RemoveNode(ctx context.Context, n int) error {
	_, err := withService(s, ctx, func(svc *admin.Service) (admin.ClusterProperty, error) { return svc.RemoveNode(ctx, "", n) })
	return err
}

// ReplicationStatus implements tab.ClusterAdmin.
func (s *Sources) ReplicationStatus(ctx context.Context) (admin.ReplicationStatus, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.ReplicationStatus, error) { return q.ReplicationStatus(ctx) })
}

// ClusterLeadTable implements tab.ClusterAdmin.
func (s *Sources) ClusterLeadTable(ctx context.Context) (admin.ClusterLeadTable, error) {
	return withService(s, ctx, func(svc *admin.Service) (admin.ClusterLeadTable, error) {
		return svc.ClusterLeadTableParsed(ctx, "")
	})
}

// ListQueues implements tab.QueueLister.
func (s *Sources) ListQueues(ctx context.Context) ([]admin.QueueInfo, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) ([]admin.QueueInfo, error) { return q.Queues(ctx) })
}
