// Package config holds ilinkdash's connection contexts and resolves the
// effective settings of a run.
//
// Settings come from four layers, and each field is taken from the highest
// layer that sets it (docs/DESIGN.md §6.1):
//
//	flags  >  environment (ILINKDASH_*)  >  config file  >  embedded default
//
// The config file is YAML at $XDG_CONFIG_HOME/ilinkdash/config.yaml (see
// ExampleYAML for the format). It is decoded through yaml.Node rather than
// into structs so that every error can name the file, the line, the column
// and the field path, e.g.
//
//	config.yaml:7:5: contexts.prod.refresh.topics: invalid duration "2x"
package config

import (
	"slices"
	"time"
)

// Themes accepted by Context.Theme.
const (
	ThemeAuto  = "auto" // follow the terminal's background
	ThemeDark  = "dark"
	ThemeLight = "light"
)

// Limits and defaults of Context fields.
const (
	DefaultClientName = "ilinkdash"
	DefaultTailBuffer = 10000
	MinTailBuffer     = 100
	MaxTailBuffer     = 1000000
	// The tail's bound in bytes (keys, values, headers): whichever of
	// the record and the byte bound is reached first drops the oldest.
	DefaultTailBufferBytes = 256 << 20
	MinTailBufferBytes     = 1 << 20
	MaxTailBufferBytes     = 16 << 30
	// DefaultFPS is the dashboard's frame rate cap; LowBandwidthFPS the
	// cap in low-bandwidth mode (a key still shows within 100 ms).
	DefaultFPS      = 20
	LowBandwidthFPS = 10
	MinFPS          = 1
	MaxFPS          = 120
)

// Refresh holds the polling interval of each dashboard resource. All values
// are positive once loaded.
type Refresh struct {
	Overview    time.Duration
	Topics      time.Duration
	Groups      time.Duration
	Cluster     time.Duration
	Queues      time.Duration
	Replication time.Duration
}

// DefaultRefresh returns the intervals used for every field a context leaves
// out. Cluster membership changes rarely and its query touches every node,
// so it is polled less often than the rest.
func DefaultRefresh() Refresh {
	return Refresh{
		Overview:    2 * time.Second,
		Topics:      2 * time.Second,
		Groups:      2 * time.Second,
		Cluster:     5 * time.Second,
		Queues:      2 * time.Second,
		Replication: 2 * time.Second,
	}
}

// Health holds the thresholds of the health rules (docs/HEALTH.md): the
// `health:` block of a context. Once loaded every field is valid: the
// durations positive, the limits not negative, MaxLagCritical 0 (off) or
// at least MaxLagWarning.
type Health struct {
	Window         time.Duration // sliding window of the trend rules
	StallAfter     time.Duration // no commit advancing this long = STALLED
	MaxLagWarning  int64         // a LAGGING group alerts (warning) from this lag
	MaxLagCritical int64         // ... and critical from this lag; 0 = never
	QueueDepth     int64         // a queue deeper than this alerts; 0 = off
	DLQWindow      time.Duration // a dead-letter queue is growing while its depth rose within this
}

// DefaultHealth returns the thresholds used for every field a context
// leaves out (the health package's defaults; a test keeps them equal).
func DefaultHealth() Health {
	return Health{
		Window:         10 * time.Second,
		StallAfter:     10 * time.Second,
		MaxLagWarning:  1000,
		MaxLagCritical: 100000,
		QueueDepth:     10000,
		DLQWindow:      5 * time.Minute,
	}
}

// Context is one named iLink target plus the dashboard settings that go with
// it.
type Context struct {
	// Name is the key of the context in the config file; empty when no file
	// context was selected (flags/environment only, or the embedded default).
	Name string
	// Addresses are data (queue manager listener) addresses, host:port, in
	// the order the client should try them.
	Addresses []string
	// Admin is the admin endpoint, host:port; empty when not configured.
	Admin string
	// Hub is a hub's admin address (`hub:`, host:port): the context is a
	// spoke reached through it (Spoke or SpokeKey, spec A-32..A-35) or,
	// with AllSpokes, every spoke the hub lists. Every connection of a
	// spoke goes through the hub: Admin and Addresses stay empty.
	Hub string
	// Spoke and SpokeKey name the spoke (`spoke:`, `spoke-key:`; one of
	// them, with Hub).
	Spoke, SpokeKey string
	// AllSpokes (`spokes: all`): the dashboard watches one cluster per
	// spoke the hub lists, following spokes that come and go.
	AllSpokes bool
	// QueueManager is the queue manager name, e.g. "QM1"; empty means the
	// one the engine offers by default.
	QueueManager string
	// ClientName identifies the dashboard to the engine.
	ClientName string
	// EndpointCacheFile persists the candidate endpoint list across restarts
	// (absolute path, "~" expanded); empty keeps the cache in memory only.
	EndpointCacheFile string
	// ReadOnly forbids every mutating admin and producer call.
	ReadOnly bool
	// Refresh holds the per-resource polling intervals.
	Refresh Refresh
	// Theme is ThemeAuto, ThemeDark or ThemeLight.
	Theme string
	// TailBuffer is the number of records the tail view keeps, in
	// MinTailBuffer..MaxTailBuffer; TailBufferBytes the bytes of keys,
	// values and headers it keeps (MinTailBufferBytes..MaxTailBufferBytes).
	TailBuffer      int
	TailBufferBytes int64
	// Health holds the thresholds of the health rules.
	Health Health
	// Decode says how the records of matching topics and queues are shown
	// (`decode:`): with a schema (protobuf, avro, json-schema) or a format.
	Decode []DecodeRule
	// LowBandwidth fits the dashboard to a slow link (about 8,000 B/s):
	// live tables advance at most 2×/s, counters change at most 1×/s and
	// nothing animates (`low-bandwidth: true`, --low-bandwidth,
	// ILINKDASH_LOW_BANDWIDTH).
	LowBandwidth bool
	// FPS caps the frames per second written to the terminal, in
	// MinFPS..MaxFPS; 0 = DefaultFPS, or LowBandwidthFPS with LowBandwidth
	// (`fps:`, --max-fps, ILINKDASH_MAX_FPS).
	FPS int
}

// IsSpoke reports whether the context is one spoke reached through a hub.
func (c Context) IsSpoke() bool { return c.Hub != "" && (c.Spoke != "" || c.SpokeKey != "") }

// FrameRate is the frame rate cap in effect: FPS, else the default of the
// bandwidth mode.
func (c Context) FrameRate() int {
	switch {
	case c.FPS > 0:
		return c.FPS
	case c.LowBandwidth:
		return LowBandwidthFPS
	}
	return DefaultFPS
}

// DefaultContext returns a context with every field at its default: no
// name, no addresses, no admin, writable.
func DefaultContext() Context {
	return Context{
		ClientName: DefaultClientName,
		Refresh:    DefaultRefresh(),
		Theme:      ThemeAuto,
		TailBuffer: DefaultTailBuffer,
		Health:     DefaultHealth(),

		TailBufferBytes: DefaultTailBufferBytes,
	}
}

// File is a loaded config file.
type File struct {
	// Path is the file the contexts were read from (or would have been read
	// from, when the default file does not exist).
	Path string
	// Exists reports whether Path existed when it was loaded.
	Exists bool
	// CurrentContext is the context used when neither --context nor
	// ILINKDASH_CONTEXT selects one; empty for none. Load guarantees it
	// names one of Contexts.
	CurrentContext string
	// Contexts are in file order, so pickers list them as the user wrote
	// them. Names are unique and non-empty.
	Contexts []Context
	// Serve is the serve section, with the defaults for everything the
	// file leaves out (DefaultServe() when there is no file).
	Serve Serve
}

// Lookup returns the context called name.
func (f *File) Lookup(name string) (Context, bool) {
	if f == nil {
		return Context{}, false
	}
	for _, c := range f.Contexts {
		if c.Name == name {
			// Clone so that a caller editing the result cannot change the file.
			c.Addresses = slices.Clone(c.Addresses)
			return c, true
		}
	}
	return Context{}, false
}

// Names returns the context names in file order.
func (f *File) Names() []string {
	if f == nil {
		return nil
	}
	names := make([]string, len(f.Contexts))
	for i, c := range f.Contexts {
		names[i] = c.Name
	}
	return names
}
