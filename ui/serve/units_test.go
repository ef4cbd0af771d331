package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

// testPolls is a polls with a fake clock and a counting, gated fetch of
// the topic list.
func testPolls(t *testing.T) (*polls, *atomic.Int64, chan struct{}, *time.Time) {
	p := newPolls(t.Context(), nil, config.Refresh{Topics: time.Second})
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	var n atomic.Int64
	gate := make(chan struct{})
	p.fetch[common.ResTopics] = func(ctx context.Context) (any, error) {
		n.Add(1)
		select {
		case <-gate:
			return n.Load(), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return p, &n, gate, &now
}

func TestPollsSingleFlightAndFreshness(t *testing.T) {
	t.Parallel()
	p, n, gate, now := testPolls(t)
	var wg sync.WaitGroup
	got := make([]any, 5)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i], _ = p.get(t.Context(), common.ResTopics) }()
	}
	ilinktest.WaitFor(t, deadline, "the fetch to start", func() bool { return n.Load() == 1 })
	close(gate)
	wg.Wait()
	for _, v := range got {
		if v != int64(1) {
			t.Fatalf("askers got %v, want every one the single fetch's reply", got)
		}
	}
	if n.Load() != 1 {
		t.Fatalf("%d fetches for 5 concurrent askers", n.Load())
	}
	// Younger than one interval: from the cache.
	*now = now.Add(999 * time.Millisecond)
	if v, _ := p.get(t.Context(), common.ResTopics); v != int64(1) || n.Load() != 1 {
		t.Fatalf("within the interval: %v after %d fetches", v, n.Load())
	}
	// One interval old: fetched again.
	*now = now.Add(time.Millisecond)
	if v, _ := p.get(t.Context(), common.ResTopics); v != int64(2) || n.Load() != 2 {
		t.Fatalf("after the interval: %v after %d fetches", v, n.Load())
	}
	// Invalidated: fetched again at once.
	p.invalidate()
	if v, _ := p.get(t.Context(), common.ResTopics); v != int64(3) {
		t.Fatalf("after invalidate: %v", v)
	}
}

func TestPollsCachesErrorsAndOutlivesAskers(t *testing.T) {
	t.Parallel()
	p, n, gate, now := testPolls(t)
	// An asker that gives up does not cancel the read the others wait for.
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { _, err := p.get(ctx, common.ResTopics); errc <- err }()
	ilinktest.WaitFor(t, deadline, "the fetch to start", func() bool { return n.Load() == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled asker: %v", err)
	}
	close(gate)
	if v, err := p.get(t.Context(), common.ResTopics); v != int64(1) || err != nil || n.Load() != 1 {
		t.Fatalf("the shared read was abandoned: %v %v after %d fetches", v, err, n.Load())
	}
	// A failure is cached for the interval too: no storm during an outage.
	boom := errors.New("boom")
	var fails atomic.Int64
	p.fetch[common.ResQueues] = func(context.Context) (any, error) { fails.Add(1); return nil, boom }
	for range 3 {
		if _, err := p.get(t.Context(), common.ResQueues); !errors.Is(err, boom) {
			t.Fatalf("err %v", err)
		}
	}
	if fails.Load() != 1 {
		t.Fatalf("%d fetches of a failing resource within one interval", fails.Load())
	}
	*now = now.Add(2 * time.Second)
	_, _ = p.get(t.Context(), common.ResQueues)
	if fails.Load() != 2 {
		t.Fatalf("the failure was not retried after the interval")
	}
}

func TestParseAuthorizedKeys(t *testing.T) {
	t.Parallel()
	a, b, c := newClientKey(t, "a@x"), newClientKey(t, "b@y"), newClientKey(t, "c@z")
	data := "# comment\n\n" + a.line() +
		"from=\"127.0.0.0/8\" " + b.line() + // options: skipped
		"not a key at all\n" +
		"  " + c.line()
	var logs []string
	keys := parseAuthorizedKeys("keys", []byte(data), func(f string, args ...any) { logs = append(logs, f) })
	if len(keys) != 2 || keys[string(a.signer.PublicKey().Marshal())] != "a@x" || keys[string(c.signer.PublicKey().Marshal())] != "c@z" {
		t.Fatalf("keys %v", keys)
	}
	if _, ok := keys[string(b.signer.PublicKey().Marshal())]; ok {
		t.Fatal("a key with options was accepted")
	}
	if len(logs) != 2 || !strings.Contains(logs[0], "%s:%d") {
		t.Fatalf("logs %q", logs)
	}
}

func TestKeyFileReloadAndMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "keys")
	a, b := newClientKey(t, "a"), newClientKey(t, "b")
	writeKeys(t, path, a)
	kf, err := newKeyFile(path, RoleViewer, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := kf.lookup(b.signer.PublicKey()); ok {
		t.Fatal("b known before it was added")
	}
	writeKeys(t, path, a, b)
	touch(t, path)
	if c, ok := kf.lookup(b.signer.PublicKey()); !ok || c != "b" {
		t.Fatal("b not known after it was added")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, ok := kf.lookup(a.signer.PublicKey()); ok {
		t.Fatal("a key of a deleted file is still accepted")
	}
	if _, err := newKeyFile(filepath.Join(dir, "missing"), RoleOperator, t.Logf); err == nil || !strings.Contains(err.Error(), "operator keys") {
		t.Fatalf("missing file at start: %v", err)
	}
	if _, err := newKeyring("", "", t.Logf); err == nil || !strings.Contains(err.Error(), "--authorized-keys") {
		t.Fatalf("no key file: %v", err)
	}
}

func TestHostKeyCreatedOnceWithMode0600(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "data", "ilinkdash", "ssh_host_ed25519_key")
	s1, created, err := loadHostKey(path)
	if err != nil || !created {
		t.Fatalf("first start: created %v, %v", created, err)
	}
	if s1.PublicKey().Type() != gossh.KeyAlgoED25519 {
		t.Fatalf("key type %s", s1.PublicKey().Type())
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", st.Mode(), err)
	}
	if dst, _ := os.Stat(filepath.Dir(path)); dst.Mode().Perm() != 0o700 {
		t.Fatalf("key dir mode %v", dst.Mode())
	}
	s2, created, err := loadHostKey(path)
	if err != nil || created || gossh.FingerprintSHA256(s2.PublicKey()) != gossh.FingerprintSHA256(s1.PublicKey()) {
		t.Fatalf("second start: created %v, %v, same key %v", created, err, gossh.FingerprintSHA256(s2.PublicKey()) == gossh.FingerprintSHA256(s1.PublicKey()))
	}
	pub, err := os.ReadFile(path + ".pub")
	if err != nil || !strings.HasPrefix(string(pub), "ssh-ed25519 ") {
		t.Fatalf(".pub: %q %v", pub, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadHostKey(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable key: %v", err)
	}
}

// Details (a described group or topic, a topic's stats) are shared like
// the polled lists: one read per key and interval however many sessions
// ask, a read per distinct key, and none cached across a mutation.
func TestPollsShareDetails(t *testing.T) {
	t.Parallel()
	p, _, _, now := testPolls(t)
	p.refresh.Groups = time.Second
	var reads sync.Map // key → *atomic.Int64
	fetch := func(key string) func(context.Context) (any, error) {
		c, _ := reads.LoadOrStore(key, new(atomic.Int64))
		return func(context.Context) (any, error) { return c.(*atomic.Int64).Add(1), nil }
	}
	count := func(key string) int64 {
		c, ok := reads.Load(key)
		if !ok {
			return 0
		}
		return c.(*atomic.Int64).Load()
	}
	var wg sync.WaitGroup
	for range 10 { // ten sessions with group a's detail open
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = p.detail(t.Context(), "group/a", common.ResGroups, fetch("group/a")) }()
	}
	wg.Wait()
	if n := count("group/a"); n != 1 {
		t.Fatalf("%d reads of group a for ten sessions", n)
	}
	if _, _ = p.detail(t.Context(), "group/b", common.ResGroups, fetch("group/b")); count("group/b") != 1 {
		t.Fatal("another group's detail was not read")
	}
	*now = now.Add(time.Second) // one interval on: read again
	if v, _ := p.detail(t.Context(), "group/a", common.ResGroups, fetch("group/a")); v != int64(2) {
		t.Fatalf("after the interval: %v", v)
	}
	p.invalidate() // a session seeked the group
	if v, _ := p.detail(t.Context(), "group/a", common.ResGroups, fetch("group/a")); v != int64(3) {
		t.Fatalf("after a mutation: %v", v)
	}
	// The cache is bounded: details nobody asked for in a minute go.
	*now = now.Add(2 * time.Minute)
	for i := range 2 * maxEntries {
		key := "topic/T" + strconv.Itoa(i)
		_, _ = p.detail(t.Context(), key, common.ResTopics, fetch(key))
		*now = now.Add(time.Second)
	}
	p.mu.Lock()
	n := len(p.res)
	p.mu.Unlock()
	if n > maxEntries+60 {
		t.Fatalf("%d cache entries after %d details", n, 2*maxEntries)
	}
}

// The SSH command picks a served context by its exact name, one word;
// anything else is refused naming what is served, the asked text
// sanitized and cut.
func TestPickContext(t *testing.T) {
	t.Parallel()
	named := func(names ...string) *Server {
		s := &Server{}
		for _, n := range names {
			s.clusters = append(s.clusters, &served{Cluster: Cluster{Context: config.Context{Name: n}}})
		}
		return s
	}
	two := named("alpha", "bravo")
	for _, c := range []struct {
		s    *Server
		cmd  []string
		want int
		err  string
	}{
		{two, nil, -1, ""},
		{two, []string{"bravo"}, 1, ""},
		{two, []string{"Bravo"}, 0, `no context "Bravo" here; this server serves alpha, bravo`},
		{two, []string{"bravo", "extra"}, 0, `no context "bravo extra"`},
		{two, []string{strings.Repeat("x", 100)}, 0, strings.Repeat("x", 64) + "…"},
		{named("prod"), nil, 0, ""},
		{named("prod"), []string{"prod"}, 0, ""},
		{named("prod"), []string{"dr"}, 0, "this server serves prod"},
		{named(""), []string{"dr"}, 0, "serves one cluster: connect without a command"},
	} {
		got, err := c.s.pick(c.cmd)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("pick %q: %d, %v; want %d", c.cmd, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("pick %q: %v; want an error with %q", c.cmd, err, c.err)
		}
	}
	if _, err := two.pick([]string{"a\x1b[2Jb"}); err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("an escape in the asked name reached the refusal: %q", err)
	} else if want := `"` + sanitize.String("a\x1b[2Jb") + `"`; !strings.Contains(err.Error(), want) {
		t.Errorf("the refusal %q does not quote the sanitized name once, as %s", err, want)
	}
}

// The audit line of a delete or flush says what it took as the last list
// showed it, read from the shared cache without asking the cluster; a
// name the list lacks, an error reply or no reply yet give no figures.
func TestAuditFiguresOfWhatADeleteTakes(t *testing.T) {
	at := time.Date(2026, 12, 7, 22, 41, 7, 0, time.UTC)
	p := &polls{res: map[string]*pollEntry{}}
	ss := &sessionSources{c: &served{polls: p}}
	if got := ss.topicSeen("ORDERS"); got != "" {
		t.Fatalf("no list yet: %q", got)
	}
	p.res["res/"+strconv.Itoa(int(common.ResTopics))] = &pollEntry{has: true, sent: at, val: []admin.TopicInfo{
		{Name: "OTHER", Partitions: 1, EndOffsetSum: 5},
		{Name: "ORDERS", Partitions: 3, StartOffsetSum: 100, EndOffsetSum: 12445},
	}}
	p.res["res/"+strconv.Itoa(int(common.ResGroups))] = &pollEntry{has: true, sent: at, val: []admin.GroupInfo{
		{Name: "billing", State: admin.GroupStable, Members: 2, Partitions: []admin.PartitionOffsets{{Topic: "ORDERS", Committed: 10, End: 130}}},
	}}
	for _, c := range []struct{ got, want string }{
		{ss.topicSeen("ORDERS"), "records=12345 partitions=3 seen=2026-12-07T22:41:07Z"},
		{ss.topicSeen("GONE"), ""},
		{ss.groupSeen("billing"), "state=Stable members=2 lag=120 seen=2026-12-07T22:41:07Z"},
		{ss.groupSeen("GONE"), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	p.res["res/"+strconv.Itoa(int(common.ResTopics))] = &pollEntry{has: true, sent: at, err: errors.New("refused")}
	if got := ss.topicSeen("ORDERS"); got != "" {
		t.Fatalf("after an error reply: %q", got)
	}
}
