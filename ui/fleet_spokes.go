package ui

import (
	"context"
	"ilinkdash/config"
	"slices"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

// DefaultMaxSpokes is how many spoke rows one `spokes: all` context gets
// when SpokeFollow.Max is 0: every row is a dashboard with its own
// poller, so a hub with thousands of spokes must not make thousands.
const DefaultMaxSpokes = 50

// SpokeFollow keeps the Fleet's rows of a `spokes: all` context in step
// with its hub's spoke list (issue 27 point 6): the list is read again
// every Every, in a command; a spoke that links later gets a row (New,
// up to Max rows), a spoke the hub says is not running keeps its row with
// the hub's words and since when, and so does one the hub no longer
// lists (its row stays: a spoke vanishing is what an operator must see;
// a restart of the dashboard drops it). With List nil the Fleet reads
// nothing itself: the hub's SpokeSet comes in SpokesMsgs (serve follows
// each hub once for all its sessions).
type SpokeFollow struct {
	Hub   string        // the hub context's name: its rows are HUB/SPOKE
	Every time.Duration // how often the list is read (the context's node-list interval)
	Max   int           // rows of this hub at most; 0 = DefaultMaxSpokes
	// List reads the hub's spoke list. It runs in a command, bounded by
	// Every (at most 10 s).
	List func(ctx context.Context) ([]admin.SpokeProperty, error)
	// New builds the dashboard of a spoke that appeared, not started
	// (the Fleet inits it). It runs in Update, so it must not dial.
	New func(spoke string) (*Model, error)
	// Known is the list the rows given to NewFleet were built from: the
	// rows named HUB/SPOKE for these spokes are this hub's.
	Known []admin.SpokeProperty
	// Err: the list could not be read at start (Known is empty); the
	// title says so until a read succeeds.
	Err error
}

// FleetOption configures a Fleet.
type FleetOption func(*Fleet)

// WithSpokes follows a `spokes: all` context's hub (one per such context).
func WithSpokes(sf SpokeFollow) FleetOption {
	return func(f *Fleet) {
		if sf.Max <= 0 {
			sf.Max = DefaultMaxSpokes
		}
		if sf.Every <= 0 {
			sf.Every = 5 * time.Second
		}
		fw := &spokeFollower{SpokeFollow: sf, set: SpokeSet{Hub: sf.Hub, Max: sf.Max}, rows: map[string]int{}}
		f.followers = append(f.followers, fw)
		if sf.List != nil {
			f.takeSpokes(len(f.followers)-1, sf.Known, sf.Err, f.ctx.Now())
		}
	}
}

// SpokeSet is what a followed hub's spoke lists said, apart from any
// dashboard (the list diff, the cap and the words): the spokes given rows
// in the order they came (at most Max; a row stays when its spoke leaves
// the list), the hub's word for each and since when, how many listed
// spokes are over the cap, the last read's error. A Fleet following a hub
// itself keeps one; serve keeps one per hub for every session and sends
// each a copy (SpokesMsg), so the sessions' rows are the server's.
type SpokeSet struct {
	Hub    string
	Max    int
	Rows   []SpokeRow
	Hidden int   // listed spokes without a row (over Max)
	Err    error // the last read's, or the last add's
}

// SpokeRow is one spoke given a row and what its hub says of it.
type SpokeRow struct {
	Spoke string
	Word  string    // "" while listed running; else hubNotRunning or hubNotListed
	Since time.Time // since when the hub says Word
}

// Take applies a list read at now (err: the read failed, no row changes).
// A listed spoke without a row gets one while there is room and add (nil:
// always) accepts it; add's error is kept in Err and the spoke tried again
// on the next list. It returns the spokes given rows now.
func (s *SpokeSet) Take(list []admin.SpokeProperty, err error, now time.Time, add func(spoke string) error) []string {
	if s.Err = err; err != nil {
		return nil
	}
	at := make(map[string]int, len(s.Rows))
	for i, r := range s.Rows {
		at[r.Spoke] = i
	}
	var added []string
	listed := make(map[string]bool, len(list))
	s.Hidden = 0
	for _, sp := range list {
		listed[sp.Name] = true
		i, ok := at[sp.Name]
		if !ok {
			if len(s.Rows) >= s.Max {
				s.Hidden++
				continue
			}
			if add != nil {
				if err := add(sp.Name); err != nil {
					s.Err = err
					continue
				}
			}
			i = len(s.Rows)
			at[sp.Name] = i
			s.Rows = append(s.Rows, SpokeRow{Spoke: sp.Name, Since: now})
			added = append(added, sp.Name)
		}
		word := ""
		if !sp.Running {
			word = hubNotRunning
		}
		s.Rows[i].says(word, now)
	}
	for i := range s.Rows {
		if !listed[s.Rows[i].Spoke] {
			s.Rows[i].says(hubNotListed, now)
		}
	}
	return added
}

// says notes the hub's word for the row's spoke, keeping since when.
func (r *SpokeRow) says(word string, now time.Time) {
	if word != r.Word {
		r.Word, r.Since = word, now
	}
}

// Copy is the set with its own rows (a message's, another goroutine's).
func (s *SpokeSet) Copy() SpokeSet {
	c := *s
	c.Rows = slices.Clone(s.Rows)
	return c
}

// FollowSpokes reads a hub's spoke list every `every` (each read bounded
// by every, at most 10 s) and hands each to take with the time it was
// read, until ctx ends: the one follower per hub of serve and of the
// exporter (a Fleet following a hub itself reads in its commands).
func FollowSpokes(ctx context.Context, every time.Duration, list func(context.Context) ([]admin.SpokeProperty, error),
	take func([]admin.SpokeProperty, error, time.Time)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, min(every, 10*time.Second))
		l, err := list(rctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		take(l, err, time.Now())
	}
}

// SpokesMsg is a hub's SpokeSet for the Fleet following it without
// reading (SpokeFollow.List nil): serve's follower sends it to every
// session. A row new to the Fleet is built with New.
type SpokesMsg struct{ Set SpokeSet }

// spokeFollower is one followed hub: what its lists said, which row is
// which spoke.
type spokeFollower struct {
	SpokeFollow
	set     SpokeSet
	rows    map[string]int // spoke → cluster index
	newErr  error          // the last New that failed
	pending bool           // a list read or its timer is in flight
}

// hubWord is what a spoke's hub says of it when that is not "running":
// SpokeRow.Word, shown on the row with since when.
const (
	hubNotRunning = "not running"
	hubNotListed  = "no longer listed"
)

// spokeTickMsg: time to read follower f's list again.
type spokeTickMsg struct{ f int }

// spokeListMsg is follower f's list as read at at.
type spokeListMsg struct {
	f    int
	list []admin.SpokeProperty
	err  error
	at   time.Time
}

// followInit arms every reading follower's first re-read.
func (f *Fleet) followInit() []tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(f.followers))
	for i := range f.followers {
		cmds = append(cmds, f.spokeTimer(i))
	}
	return cmds
}

func (f *Fleet) spokeTimer(i int) tea.Cmd {
	fw := f.followers[i]
	if fw.pending || fw.List == nil {
		return nil
	}
	fw.pending = true
	return f.ctx.Tick(fw.Every, func(time.Time) tea.Msg { return spokeTickMsg{f: i} })
}

// readSpokes is the command reading follower i's list.
func (f *Fleet) readSpokes(i int) tea.Cmd {
	list, every, now := f.followers[i].List, f.followers[i].Every, f.ctx.Now
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), min(every, 10*time.Second))
		defer cancel()
		l, err := list(ctx)
		return spokeListMsg{f: i, list: l, err: err, at: now()}
	}
}

// onSpokes handles a follower's timer and its list, and a pushed set.
func (f *Fleet) onSpokes(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case spokeTickMsg:
		if msg.f < 0 || msg.f >= len(f.followers) {
			return nil
		}
		return f.readSpokes(msg.f)
	case spokeListMsg:
		if msg.f < 0 || msg.f >= len(f.followers) {
			return nil
		}
		f.followers[msg.f].pending = false
		cmd := f.takeSpokes(msg.f, msg.list, msg.err, msg.at)
		f.refreshRows()
		return tea.Batch(cmd, f.spokeTimer(msg.f))
	case SpokesMsg:
		for i, fw := range f.followers {
			if fw.Hub == msg.Set.Hub && fw.List == nil {
				fw.set = msg.Set
				cmd := f.applySpokes(i)
				f.refreshRows()
				return cmd
			}
		}
	}
	return nil
}

// takeSpokes applies follower i's list read at now (a failed read changes
// no row: the rows' own polls say what they see).
func (f *Fleet) takeSpokes(i int, list []admin.SpokeProperty, err error, now time.Time) tea.Cmd {
	f.followers[i].set.Take(list, err, now, nil)
	return f.applySpokes(i)
}

// applySpokes brings follower i's rows to its set: a spoke without a row
// gets the row of the same name given to NewFleet, or a new one (New);
// every row shows the hub's word for its spoke.
func (f *Fleet) applySpokes(i int) tea.Cmd {
	fw := f.followers[i]
	fw.newErr = nil
	var cmds []tea.Cmd
	for _, r := range fw.set.Rows {
		idx, ok := fw.rows[r.Spoke]
		if !ok {
			if idx = f.clusterNamed(fw.Hub + "/" + r.Spoke); idx < 0 {
				m, err := fw.New(r.Spoke)
				if err != nil {
					fw.newErr = err
					continue
				}
				idx = len(f.clusters)
				cmds = append(cmds, f.addCluster(m))
			}
			fw.rows[r.Spoke] = idx
		}
		f.clusters[idx].hubWord, f.clusters[idx].hubSince = r.Word, r.Since
	}
	return tea.Batch(cmds...)
}

// clusterNamed is the index of the cluster of context name, -1 if none.
func (f *Fleet) clusterNamed(name string) int {
	for i, c := range f.clusters {
		if c.m.ctx.Name == name {
			return i
		}
	}
	return -1
}

// addCluster adds a cluster to a running fleet: its model is sized and
// themed as the others and started, its commands addressed to its row.
func (f *Fleet) addCluster(m *Model) tea.Cmd {
	m.ctx.Fleet = true
	if f.started && (m.ctx.ThemeName == config.ThemeAuto || m.ctx.ThemeName == "") {
		// A row added to a running fleet follows the terminal as the
		// Fleet has learnt it; an explicit theme is the context's own.
		m.ctx.Dark = f.ctx.Dark
	}
	m.ctx.Rebuild()
	m.inFleet = true
	i := len(f.clusters)
	f.clusters = append(f.clusters, &fleetCluster{m: m})
	if !f.started {
		return nil // Init starts it with the others
	}
	cmds := []tea.Cmd{wrapCmd(i, m.Init())}
	if f.ctx.Width > 0 {
		cmds = append(cmds, f.toCluster(i, tea.WindowSizeMsg{Width: f.ctx.Width, Height: f.ctx.Height}))
	}
	return tea.Batch(cmds...)
}

// hubReason is the row's reason when the hub says its spoke is not
// running or no longer listed: the hub's words first, then the row's own.
func (c *fleetCluster) hubReason(reason string) string {
	if c.hubWord == "" {
		return reason
	}
	s := "hub: " + c.hubWord + " since " + common.Clock(c.hubSince)
	if reason != "" {
		s += "; " + reason
	}
	return s
}

// followNotes are the Fleet title's notes of the followed hubs: the
// spokes over the cap, a list that could not be read.
func (f *Fleet) followNotes() []string {
	var notes []string
	for _, fw := range f.followers {
		hub := sanitize.String(fw.Hub)
		if fw.set.Hidden > 0 {
			notes = append(notes, common.Plural(fw.set.Hidden, "more spoke")+" of "+hub+" not shown (at most "+strconv.Itoa(fw.set.Max)+")")
		}
		for _, err := range []error{fw.set.Err, fw.newErr} {
			if err != nil {
				notes = append(notes, "spokes of "+hub+": "+sanitize.Error(err))
			}
		}
	}
	return notes
}
