package serve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui"
)

// Hub is a `spokes: all` context whose hub serve follows (issue 27 point
// 6): its spoke list is read every Every by one follower for the whole
// server, however many sessions are open; a spoke that links later is
// served as NAME/SPOKE (its shared poller, at most Max spokes of the hub)
// and appears in every open and future session's Fleet; a spoke that
// leaves keeps its row, which says what the hub says (ui.SpokeSet).
type Hub struct {
	Name  string        // the context's name: its spokes are served as NAME/SPOKE
	Every time.Duration // how often the list is read (the context's node-list interval)
	Max   int           // spokes served at most; 0 = ui.DefaultMaxSpokes
	// List reads the hub's spoke list (read-only), bounded by Every (at
	// most 10 s).
	List func(ctx context.Context) ([]admin.SpokeProperty, error)
	// Spoke is the served cluster of a spoke not in Config.Clusters (its
	// context NAME/SPOKE and both roles' backends). It must not dial.
	Spoke func(spoke string) (Cluster, error)
	// Known is the list Config.Clusters' NAME/SPOKE contexts were built
	// from (one missing is built with Spoke).
	Known []admin.SpokeProperty
	// Added, when set, is told of each spoke served after New, with its
	// index for PolledIn; it runs on the follower's goroutine, which
	// starts with Serve.
	Added func(i int, c Cluster)
}

// hubFollower is a served Hub and what its lists said (under Server.cmu).
type hubFollower struct {
	Hub
	set ui.SpokeSet
}

// checkHubs: a followed hub has a name, a list and a spoke builder.
func checkHubs(hs []Hub) error {
	for _, h := range hs {
		if h.Name == "" || h.List == nil || h.Spoke == nil {
			return fmt.Errorf("serve: followed hub %q needs a name, its list and its spokes' builder", h.Name)
		}
	}
	return nil
}

// startHubs takes each hub's known list (a spoke without a cluster is
// built).
func (s *Server) startHubs(hs []Hub) error {
	for _, h := range hs {
		if h.Max <= 0 {
			h.Max = ui.DefaultMaxSpokes
		}
		if h.Every <= 0 {
			h.Every = 5 * time.Second
		}
		hf := &hubFollower{Hub: h, set: ui.SpokeSet{Hub: h.Name, Max: h.Max}}
		s.cmu.Lock()
		hf.set.Take(h.Known, nil, time.Now(), func(spoke string) error { return s.addSpokeLocked(hf, spoke) })
		err := hf.set.Err
		s.hubs = append(s.hubs, hf)
		s.cmu.Unlock()
		if err != nil {
			return fmt.Errorf("context %s: %w", h.Name, err)
		}
	}
	return nil
}

// followHubs starts every hub's follower (Serve: Hub.Added is told of a
// spoke only once the server serves), until Shutdown.
func (s *Server) followHubs() {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	for _, hf := range s.hubs {
		s.following.Go(func() { s.follow(hf) })
	}
}

// follow reads hf's list every Every until the server ends.
func (s *Server) follow(hf *hubFollower) {
	ui.FollowSpokes(s.base, hf.Every, hf.List, func(list []admin.SpokeProperty, err error, now time.Time) {
		s.takeSpokes(hf, list, err, now)
	})
}

// takeSpokes applies a list of hf's read at now: new spokes are served
// (Added told), and every session is told when anything changed.
func (s *Server) takeSpokes(hf *hubFollower, list []admin.SpokeProperty, err error, now time.Time) {
	s.cmu.Lock()
	before := hf.set.Copy()
	first := len(s.clusters)
	hf.set.Take(list, err, now, func(spoke string) error { return s.addSpokeLocked(hf, spoke) })
	added := s.clusters[first:]
	changed := !sameSpokes(before, hf.set)
	s.cmu.Unlock()
	for i, c := range added {
		s.logf("serve: context %s: spoke %s linked, served as %s", hf.Name, c.Context.Spoke, c.Context.Name)
		if hf.Added != nil {
			hf.Added(first+i, c.Cluster)
		}
	}
	if changed {
		s.pokeSessions()
	}
}

// addSpokeLocked serves spoke of hf unless a cluster of its name is served.
func (s *Server) addSpokeLocked(hf *hubFollower, spoke string) error {
	name := hf.Name + "/" + spoke
	if slices.ContainsFunc(s.clusters, func(c *served) bool { return c.Context.Name == name }) {
		return nil
	}
	c, err := hf.Spoke(spoke)
	if err != nil {
		return fmt.Errorf("spoke %s: %w", spoke, err)
	}
	if c.Viewer == nil || c.Operator == nil {
		return fmt.Errorf("spoke %s: both roles' backends are required", spoke)
	}
	c.Context.Name = name
	s.clusters = append(s.clusters, &served{Cluster: c, polls: newPolls(s.base, c.Viewer, c.Context.Refresh)})
	return nil
}

// sameSpokes: nothing a session shows differs between a and b.
func sameSpokes(a, b ui.SpokeSet) bool {
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	return a.Hidden == b.Hidden && errText(a.Err) == errText(b.Err) && slices.Equal(a.Rows, b.Rows)
}

// spokeSets are copies of every followed hub's set, and the served
// clusters they were taken with.
func (s *Server) spokeSets() ([]ui.SpokeSet, []*served) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	sets := make([]ui.SpokeSet, len(s.hubs))
	for i, hf := range s.hubs {
		sets[i] = hf.set.Copy()
	}
	return sets, s.clusters
}

// servedList is the served clusters now (the slice only grows: an index
// once served stays the same cluster).
func (s *Server) servedList() []*served {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	return s.clusters
}

// clusterNamed is the index of the served context name, -1 if none.
func (s *Server) clusterNamed(name string) int {
	return slices.IndexFunc(s.servedList(), func(c *served) bool { return c.Context.Name == name })
}

// pokeSessions tells every open session that a hub's set changed. The
// poke is a token in the session's one-slot channel, never a blocking
// send: a session that has one pending reads the newest set anyway.
func (s *Server) pokeSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		select {
		case ss.spokes <- struct{}{}:
		default:
		}
	}
}

// spokesPokeMsg: a followed hub's set changed; the session model hands
// the sets to its Fleet.
type spokesPokeMsg struct{}

// waitSpokes is the session's command waiting for a poke (until the
// session ends).
func waitSpokes(ss *session) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-ss.spokes:
			return spokesPokeMsg{}
		case <-ss.ctx.Done():
			return nil
		}
	}
}

// spokeFollows are the session Fleet's followers of the server's hubs:
// each reads nothing (the server's follower does) and builds a spoke's
// dashboard on its served cluster with model.
func (s *Server) spokeFollows(model func(i int) *ui.Model) []ui.FleetOption {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	opts := make([]ui.FleetOption, 0, len(s.hubs))
	for _, hf := range s.hubs {
		name := hf.Name
		opts = append(opts, ui.WithSpokes(ui.SpokeFollow{Hub: name, Max: hf.Max, New: func(spoke string) (*ui.Model, error) {
			i := s.clusterNamed(name + "/" + spoke)
			if i < 0 {
				return nil, errors.New("spoke " + spoke + " is not served")
			}
			return model(i), nil
		}}))
	}
	return opts
}
