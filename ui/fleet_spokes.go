package ui

import (
	"context"
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
// a restart of the dashboard drops it).
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
		fw := &spokeFollower{SpokeFollow: sf, rows: map[string]int{}}
		for i, c := range f.clusters {
			for _, sp := range sf.Known {
				if c.m.ctx.Name == sf.Hub+"/"+sp.Name {
					fw.rows[sp.Name] = i
				}
			}
		}
		f.followers = append(f.followers, fw)
		f.takeSpokes(len(f.followers)-1, sf.Known, nil, f.ctx.Now())
	}
}

// spokeFollower is one followed hub: which row is which spoke, how many
// listed spokes have no row (the cap), the last list error.
type spokeFollower struct {
	SpokeFollow
	rows    map[string]int // spoke name → cluster index
	hidden  int
	err     error
	pending bool // a list read or its timer is in flight
}

// hubWord is what a spoke's hub says of it when that is not "running":
// fleetCluster.hubWord, kept with since when.
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

// followInit arms every follower's first re-read.
func (f *Fleet) followInit() []tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(f.followers))
	for i := range f.followers {
		cmds = append(cmds, f.spokeTimer(i))
	}
	return cmds
}

func (f *Fleet) spokeTimer(i int) tea.Cmd {
	fw := f.followers[i]
	if fw.pending {
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

// onSpokes handles a follower's timer and its list.
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
	}
	return nil
}

// takeSpokes applies follower i's list read at now: new spokes get a row
// (within Max), every row of this hub gets the hub's word for it. A
// failed read changes no row (the rows' own polls say what they see).
func (f *Fleet) takeSpokes(i int, list []admin.SpokeProperty, err error, now time.Time) tea.Cmd {
	fw := f.followers[i]
	if fw.err = err; err != nil {
		return nil
	}
	var cmds []tea.Cmd
	listed := make(map[string]bool, len(list))
	fw.hidden = 0
	for _, sp := range list {
		listed[sp.Name] = true
		idx, ok := fw.rows[sp.Name]
		if !ok {
			if len(fw.rows) >= fw.Max {
				fw.hidden++
				continue
			}
			m, err := fw.New(sp.Name)
			if err != nil {
				fw.err = err
				continue
			}
			idx = len(f.clusters)
			fw.rows[sp.Name] = idx
			cmds = append(cmds, f.addCluster(m))
		}
		word := ""
		if !sp.Running {
			word = hubNotRunning
		}
		f.clusters[idx].hubSays(word, now)
	}
	for name, idx := range fw.rows {
		if !listed[name] {
			f.clusters[idx].hubSays(hubNotListed, now)
		}
	}
	return tea.Batch(cmds...)
}

// hubSays notes the hub's word for the cluster's spoke ("" = running),
// keeping since when it has said it.
func (c *fleetCluster) hubSays(word string, now time.Time) {
	if word != c.hubWord {
		c.hubWord, c.hubSince = word, now
	}
}

// addCluster adds a cluster to a running fleet: its model is sized and
// themed as the others and started, its commands addressed to its row.
func (f *Fleet) addCluster(m *Model) tea.Cmd {
	m.ctx.Fleet, m.ctx.Dark = true, f.ctx.Dark
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
		if fw.hidden > 0 {
			notes = append(notes, common.Plural(fw.hidden, "more spoke")+" of "+hub+" not shown (at most "+strconv.Itoa(fw.Max)+")")
		}
		if fw.err != nil {
			notes = append(notes, "spokes of "+hub+": "+sanitize.Error(fw.err))
		}
	}
	return notes
}
