// Package demo drives live traffic through an in-process engine so that every
// dashboard view has something to show: topics with steady producers, queues
// whose depth moves (and a dead-letter queue that grows), and consumer groups
// that show every health word for the reason the word means (Groups lists
// them: OK, LAGGING, STALLED, STOPPED, REWOUND, REBALANCING, EMPTY), plus an
// occasional partition leader move for the overview's alert list.
//
// It uses the real client (producer, consumer v2, queue sessions) against the
// engine's listeners, so the demo exercises the same paths as a real cluster.
// It lives in its own package because the engine must not import the client:
// the client's tests import the engine.
package demo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/wire"
)

// Options tune the demo. The zero value is the dashboard's default.
type Options struct {
	// Rate is the records per second spread over the demo topics (default 300).
	// It is kept low on purpose: the demo runs under the dashboard and must
	// leave the machine idle enough to be pleasant over SSH.
	Rate int
	// LeaderMoveEvery moves one partition leader periodically (default 4m;
	// negative = never), so the overview shows leader changes.
	LeaderMoveEvery time.Duration
	// RebalanceEvery makes a second member join the "fraud-check" group and
	// leave it again half a period later (default 20s; negative = never):
	// each join and each leave is a rebalance.
	RebalanceEvery time.Duration
	// RewindEvery makes the "replay" group seek back and read again
	// (default 40s, the first time after a quarter of it, so that a dashboard
	// started with the demo shows REWOUND from about 10 s to 20 s; negative =
	// never).
	RewindEvery time.Duration
	// CommitInterval is the auto-commit interval of the demo's consumers
	// (default 2s).
	CommitInterval time.Duration
	// ReadExpiry is the demo consumers' read expiry (default 0: the
	// consumer's own, 5 minutes); a consumer that reads nothing for that
	// long leaves its group.
	ReadExpiry time.Duration
	// DeadLetterCap is the depth the demo trims its dead-letter queues to
	// (default DeadLetterCap).
	DeadLetterCap int
	Logf          func(format string, args ...any)
}

// Groups are the demo's consumer groups and the health word each shows
// (docs/HEALTH.md), with the reason: the demo test checks each word on the
// dashboard's own evaluation, for this reason.
var Groups = []struct{ Name, Word, Why string }{
	{"billing", "OK", "one member reads ORDER.EVENT as fast as it arrives and auto-commits"},
	{"shipping", "OK", "commits every record of ORDER.KR as it reads it"},
	{"analytics", "LAGGING", "reads ORDER.* slower than it is produced: its commits advance, its lag grows"},
	{"archiver", "STALLED", "a member that committed once on AUDIT.LOG/0 and commits nothing since, reading a record now and then to stay a member (AUDIT.LOG/1 has no commit)"},
	{"legacy-export", "STOPPED", "read 50 records of INVENTORY.UPDATE, committed them and left: no member, records unread (partitions without a commit count from their log start)"},
	{"nightly-report", "EMPTY", "read all of REPORT.DAILY, which nobody writes to any more, and left: no member, nothing unread"},
	{"replay", "REWOUND", "reads PAYMENT.RESULT and every RewindEvery seeks back 300 records per partition: its commits move backwards"},
	{"fraud-check", "REBALANCING", "a second member joins and leaves every RebalanceEvery: the group reassigns its partitions"},
}

// Topics created by the demo, with their properties.
var Topics = []Topic{
	{Name: "ORDER.EVENT", Props: "partitions=6,replicas=3,minSync=2,retention.ms=3600000"},
	{Name: "ORDER.KR", Props: "partitions=3,replicas=2,retention.ms=3600000"},
	{Name: "PAYMENT.RESULT", Props: "partitions=3,replicas=3,minSync=2,retention.ms=3600000"},
	{Name: "AUDIT.LOG", Props: "partitions=2,replicas=2,retention.bytes=33554432"},
	{Name: "INVENTORY.UPDATE", Props: "partitions=4,replicas=2,retention.ms=1800000"},
	{Name: "REPORT.DAILY", Props: "partitions=1,replicas=2"},
	{Name: ShopOrders, Props: "partitions=3,replicas=3,minSync=2,retention.ms=3600000"},
	{Name: PayPayments, Props: "partitions=2,replicas=2,retention.ms=3600000"},
}

// Queues created by the demo, with their properties. Both have a
// dead-letter queue (created by the engine): PAYMENT.Q's consumer rolls
// back the poison messages it meets, which move to PAYMENT.DLQ after two
// returns, so that DLQ grows slowly.
var Queues = []Queue{
	{Name: "ORDER.Q", Cfg: engine.QueueConfig{Description: "incoming orders", MaxDepth: 5000, DeadLetterQueue: "ORDER.DLQ", MaxRedeliveries: 3}},
	{Name: "PAYMENT.Q", Cfg: engine.QueueConfig{Description: "payments to settle", MaxDepth: 2000, DeadLetterQueue: "PAYMENT.DLQ", MaxRedeliveries: 2}},
}

// Demo is running demo traffic. Close stops it.
type Demo struct {
	e      *engine.Engine
	addrs  string
	prod   *ilink.Producer
	opt    Options
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// codecs encode the values of the schema topics (ShopOrders,
	// PayPayments) with their built-in schemas.
	codecs map[string]schema.Codec

	closeOnce sync.Once
	mu        sync.Mutex
	closers   []func() error
}

// Start creates the demo topics and queues and starts the traffic.
func Start(e *engine.Engine, opt Options) (*Demo, error) {
	if opt.Rate <= 0 {
		opt.Rate = 300
	}
	if opt.LeaderMoveEvery == 0 {
		opt.LeaderMoveEvery = 4 * time.Minute
	}
	if opt.RebalanceEvery == 0 {
		opt.RebalanceEvery = 20 * time.Second
	}
	if opt.RewindEvery == 0 {
		opt.RewindEvery = 40 * time.Second
	}
	if opt.CommitInterval <= 0 {
		opt.CommitInterval = 2 * time.Second
	}
	if opt.DeadLetterCap <= 0 {
		opt.DeadLetterCap = DeadLetterCap
	}
	codecs, err := encoders()
	if err != nil {
		return nil, err
	}
	// A few quarantined messages for the quarantine pane: two NEW, one OLD
	// (already delivered: reinjecting it duplicates it).
	now := time.Now()
	if _, err := Seed(e, Set{Topics: Topics, Queues: Queues, Quarantine: []engine.QuarantineEntry{
		{Dir: "qdir1", Queue: "ORDER.Q", Payload: []byte(`{"order":"order-000417"}`), At: now.Add(-40 * time.Minute)},
		{Dir: "qdir1", Queue: "ORDER.Q", Payload: []byte(`{"order":"order-000418"}`), At: now.Add(-38 * time.Minute), Old: true},
		{Dir: "qdir2", Queue: "PAYMENT.Q", Payload: []byte(`{"payment":991}`), At: now.Add(-5 * time.Minute)},
	}}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Demo{e: e, addrs: strings.Join(e.DataAddrs(), ","), opt: opt, cancel: cancel, codecs: codecs}

	prod, err := ilink.NewProducer(ctx, d.addrs, ilink.ProducerConfig{
		ClientName:  "demo-producer",
		Compression: wire.CodecLZ4,
		LingerMs:    20,
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("demo: producer: %w", err)
	}
	d.addCloser(prod.Close)
	d.prod = prod

	d.spawn(func() { d.produce(ctx, prod) })
	d.spawn(func() { d.queues(ctx) })
	d.spawn(func() { d.group(ctx, "billing", "ORDER.EVENT", 0, consumer.CommitAuto) })
	d.spawn(func() { d.group(ctx, "analytics", "ORDER.*", 40*time.Millisecond, consumer.CommitAuto) })
	d.spawn(func() { d.group(ctx, "shipping", "ORDER.KR", 0, consumer.CommitImmediate) })
	d.spawn(func() { d.stalled(ctx, "archiver", "AUDIT.LOG") })
	d.spawn(func() { d.rebalancing(ctx, "fraud-check", "PAYMENT.RESULT") })
	d.spawn(func() { d.stopped(ctx, "legacy-export", "INVENTORY.UPDATE") })
	d.spawn(func() { d.empty(ctx, "nightly-report", "REPORT.DAILY", 30) })
	d.spawn(func() { d.replay(ctx, "replay", "PAYMENT.RESULT") })
	if opt.LeaderMoveEvery > 0 {
		// One partition starts away from its preferred leader, so the
		// Cluster view has an imbalance to show and to rebalance.
		if parts, err := e.TopicPartitions("PAYMENT.RESULT"); err == nil && len(parts) > 0 && len(parts[0].InSync) > 1 {
			_ = e.MovePartitionLeader("PAYMENT.RESULT", 0, parts[0].InSync[1])
		}
		d.spawn(func() { d.moveLeaders(ctx) })
	}
	return d, nil
}

// Close stops every demo goroutine and closes its clients.
func (d *Demo) Close() {
	d.closeOnce.Do(func() {
		d.cancel()
		d.wg.Wait()
		d.mu.Lock()
		closers := d.closers
		d.closers = nil
		d.mu.Unlock()
		for i := len(closers) - 1; i >= 0; i-- {
			_ = closers[i]()
		}
	})
}

func (d *Demo) spawn(fn func()) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		fn()
	}()
}

func (d *Demo) addCloser(fn func() error) {
	d.mu.Lock()
	d.closers = append(d.closers, fn)
	d.mu.Unlock()
}

func (d *Demo) logf(format string, args ...any) {
	if d.opt.Logf != nil {
		d.opt.Logf("demo: "+format, args...)
	}
}

func isExists(err error) bool {
	var ee *engine.Error
	return errors.As(err, &ee) && ee.Name == wire.ErrTopicExists
}

// sleep waits d or until ctx ends; false means stop.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// produce sends the demo records in 100 ms bursts, weighted per topic.
func (d *Demo) produce(ctx context.Context, p *ilink.Producer) {
	weights := map[string]int{"ORDER.EVENT": 40, "ORDER.KR": 10, "PAYMENT.RESULT": 20, "AUDIT.LOG": 20, "INVENTORY.UPDATE": 10,
		ShopOrders: 10, PayPayments: 10}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	rng := rand.New(rand.NewPCG(1, 2))
	seq := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		// A slow sine-like swell so the sparklines have a shape.
		phase := float64(time.Now().Unix()%120) / 120
		burst := d.opt.Rate / 10
		burst += int(float64(burst) * 0.6 * wave(phase))
		for i := 0; i < burst; i++ {
			seq++
			topic := pick(rng, weights)
			key, value := record(rng, topic, seq)
			if c := d.codecs[topic]; c != nil {
				var err error
				if value, err = c.Encode(value); err != nil {
					d.logf("%s: %v", topic, err) // a bug of the demo's own JSON
					continue
				}
			}
			p.Send(&ilink.ProducerRecord{Topic: topic, Key: key, Value: value, Headers: headers(rng)}, nil)
		}
	}
}

func wave(phase float64) float64 {
	// A triangle wave in [-1, 1]: cheap and visibly periodic.
	if phase < 0.5 {
		return 4*phase - 1
	}
	return 3 - 4*phase
}

func pick(rng *rand.Rand, weights map[string]int) string {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := rng.IntN(total)
	for _, t := range Topics { // fixed order for determinism
		n -= weights[t.Name]
		if n < 0 {
			return t.Name
		}
	}
	return Topics[0].Name
}

var (
	statuses = []string{"CREATED", "PAID", "PACKED", "SHIPPED", "DELIVERED", "CANCELLED"}
	cities   = []string{"Seoul", "Busan", "Incheon", "Daegu", "Daejeon", "Gwangju"}
)

// headers are a demo record's headers: a trace id and the source.
func headers(rng *rand.Rand) []wire.RecordHeader {
	return []wire.RecordHeader{{Key: "trace-id", Value: fmt.Appendf(nil, "%016x", rng.Uint64())}, {Key: "source", Value: []byte("demo")}}
}

// record is a demo record of topic: an order, a payment, an audit line or
// a stock change, as JSON (the schema topics' as the JSON their codecs
// encode).
func record(rng *rand.Rand, topic string, seq int) (key, value []byte) {
	order := fmt.Sprintf("order-%06d", rng.IntN(200000))
	switch topic {
	case ShopOrders:
		return []byte(order), shopOrder(rng, order, time.Now())
	case PayPayments:
		return []byte(order), payPayment(rng, order, seq, time.Now())
	case "PAYMENT.RESULT":
		ok := rng.IntN(20) != 0
		return []byte(order), fmt.Appendf(nil, `{"order":%q,"amount":%d,"currency":"KRW","approved":%t,"seq":%d}`, order, 1000+rng.IntN(500000), ok, seq)
	case "AUDIT.LOG":
		return nil, fmt.Appendf(nil, `{"ts":%q,"user":"op-%02d","action":"view","object":%q}`, time.Now().UTC().Format(time.RFC3339Nano), rng.IntN(40), order)
	case "INVENTORY.UPDATE":
		sku := fmt.Sprintf("sku-%05d", rng.IntN(5000))
		return []byte(sku), fmt.Appendf(nil, `{"sku":%q,"delta":%d,"warehouse":%q}`, sku, rng.IntN(21)-10, cities[rng.IntN(len(cities))])
	default:
		return []byte(order), fmt.Appendf(nil, `{"order":%q,"status":%q,"city":%q,"items":%d,"seq":%d}`, order, statuses[rng.IntN(len(statuses))], cities[rng.IntN(len(cities))], 1+rng.IntN(9), seq)
	}
}

// The demo's consumers buffer little: a consumer fetches for a partition
// only below ConsumerPrefetch records buffered there and below
// ConsumerBufferedBytes (decoded) in all, and a fetch asks for no more
// wire bytes than the room left, so a consumer holds at most
// ConsumerBufferedBytes plus one fetch of at most ConsumerBufferedBytes
// wire bytes, decoded (a record costs its key, value and headers plus the
// Record itself, about 130 B: at most 5 × 256 KiB even for records of a
// few dozen bytes), instead of the consumer's defaults (10,000 records per
// partition, 64 MiB, 50 MiB fetches). The
// lagging (analytics, 25 records/s of about 150/s) and stalled (archiver,
// a record a minute) groups would otherwise fill their buffers to those
// bounds: the 4-minute soak of issue 21 grew the engine process's heap by
// 13 MiB that way (consumer source.decode in the profile diff), still
// rising at 10 minutes as the topic grew partitions.
const (
	ConsumerPrefetch      = 256
	ConsumerBufferedBytes = 256 << 10
)

// consumerOptions are the options every demo consumer starts from.
func (d *Demo) consumerOptions(group string) consumer.Options {
	opt := consumer.NewOptions()
	opt.Group = group
	opt.ClientName = "demo-" + group
	opt.Prefetch = ConsumerPrefetch
	opt.MaxBufferedBytes = ConsumerBufferedBytes
	opt.Expiry = d.opt.ReadExpiry
	return opt
}

// subscribe retries until the group is joined or ctx ends: the demo starts
// while the cluster may still be settling.
func (d *Demo) subscribe(ctx context.Context, target string, opt consumer.Options) *consumer.Consumer {
	for {
		c, err := consumer.Subscribe(ctx, d.addrs, target, opt)
		if err == nil {
			return c
		}
		d.logf("subscribe %s as %s: %v", target, opt.Group, err)
		if !sleep(ctx, time.Second) {
			return nil
		}
	}
}

// group runs one member that consumes target, pausing `pace` per record
// (0 = as fast as possible): billing keeps up, analytics (25 records/s of
// the about 150/s ORDER.* gets) lags.
func (d *Demo) group(ctx context.Context, group, target string, pace time.Duration, mode consumer.CommitMode) {
	opt := d.consumerOptions(group)
	opt.Commit = mode
	opt.AutoCommitInterval = d.opt.CommitInterval
	c := d.subscribe(ctx, target, opt)
	if c == nil {
		return
	}
	defer c.Close()
	batch := 200
	if pace > 0 {
		batch = 25 // small steps: its commits advance every second or so
	}
	for ctx.Err() == nil {
		recs, err := c.ReadBatch(ctx, batch, 500*time.Millisecond)
		if err != nil && !ilink.IsNoMessage(err) {
			if ctx.Err() == nil {
				d.logf("%s: %v", group, err)
				sleep(ctx, time.Second)
			}
			continue
		}
		if pace > 0 && len(recs) > 0 {
			// Process at a fixed rate (1/pace records/s) below the produce
			// rate: the lag grows.
			if !sleep(ctx, pace*time.Duration(len(recs))) {
				return
			}
		}
	}
}

// stalled reads and never commits, staying a member: its lag grows while
// its committed offsets do not move (STALLED).
func (d *Demo) stalled(ctx context.Context, group, topic string) {
	opt := d.consumerOptions(group)
	opt.Commit = consumer.CommitManual
	c := d.subscribe(ctx, topic, opt)
	if c == nil {
		return
	}
	defer c.Close()
	// Commit once early so the group has a commit that then stays put.
	committed := false
	for ctx.Err() == nil {
		r, err := c.Read(ctx, time.Second)
		if err != nil {
			continue
		}
		if !committed {
			if c.Commit(ctx, r) == nil {
				committed = true
			}
		}
		// After the first commit the member stays alive (its heartbeats
		// continue) and commits nothing more. It reads one record a minute,
		// or its read expiry (5 minutes) would make it leave: the demo's
		// STALLED group would turn STOPPED.
		if committed {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d.stalledReadEvery()):
			}
		}
	}
}

// stalledReadEvery keeps the stalled member well inside its read expiry.
func (d *Demo) stalledReadEvery() time.Duration {
	if d.opt.ReadExpiry > 0 {
		return d.opt.ReadExpiry / 5
	}
	return time.Minute // of the consumer's 5 minutes
}

// rebalancing keeps one member and makes a second one join and leave
// periodically, so the group is often seen rebalancing.
func (d *Demo) rebalancing(ctx context.Context, group, topic string) {
	opt := d.consumerOptions(group)
	opt.ClientName = "demo-" + group + "-a"
	opt.AutoCommitInterval = d.opt.CommitInterval
	first := d.subscribe(ctx, topic, opt)
	if first == nil {
		return
	}
	defer first.Close()
	d.spawn(func() { d.drain(ctx, first) })
	if d.opt.RebalanceEvery < 0 {
		<-ctx.Done()
		return
	}
	for ctx.Err() == nil {
		if !sleep(ctx, d.opt.RebalanceEvery) {
			return
		}
		opt.ClientName = "demo-" + group + "-b"
		second := d.subscribe(ctx, topic, opt)
		if second == nil {
			return
		}
		sctx, stop := context.WithTimeout(ctx, d.opt.RebalanceEvery/2)
		d.drain(sctx, second)
		stop()
		second.Close()
	}
}

func (d *Demo) drain(ctx context.Context, c *consumer.Consumer) {
	for ctx.Err() == nil {
		_, _ = c.ReadBatch(ctx, 500, 500*time.Millisecond)
	}
}

// stopped leaves a durable group with commits and no member while records
// keep arriving (STOPPED). It commits what 50 reads gave, so partitions it
// read nothing from have no commit and count from their log start.
func (d *Demo) stopped(ctx context.Context, group, topic string) {
	if !sleep(ctx, 2*time.Second) { // let some records arrive first
		return
	}
	opt := d.consumerOptions(group)
	opt.Commit = consumer.CommitManual
	for ctx.Err() == nil {
		c, err := consumer.Assign(ctx, d.addrs, topic, nil, opt)
		if err != nil {
			d.logf("%s: %v", group, err)
			if !sleep(ctx, time.Second) {
				return
			}
			continue
		}
		recs, _ := c.ReadBatch(ctx, 50, 2*time.Second)
		for _, r := range recs {
			_ = c.Commit(ctx, r)
		}
		c.Close()
		return
	}
}

// empty writes n records to a topic nobody else writes to, reads them all
// as a durable group, commits and leaves: no member, nothing unread
// (EMPTY).
func (d *Demo) empty(ctx context.Context, group, topic string, n int) {
	for i := 0; i < n; i++ {
		rec := &ilink.ProducerRecord{Topic: topic, Value: fmt.Appendf(nil, `{"report":"daily","part":%d}`, i)}
		if _, err := d.prod.SendSync(ctx, rec); err != nil {
			d.logf("%s: %v", group, err)
			return
		}
	}
	opt := d.consumerOptions(group)
	opt.Commit = consumer.CommitImmediate
	c := d.subscribe(ctx, topic, opt)
	if c == nil {
		return
	}
	defer c.Close()
	for read := 0; read < n && ctx.Err() == nil; {
		recs, err := c.ReadBatch(ctx, n, time.Second)
		if err != nil && !ilink.IsNoMessage(err) {
			d.logf("%s: %v", group, err)
			sleep(ctx, time.Second)
		}
		read += len(recs)
	}
}

// replay reads a topic as fast as it can and, every RewindEvery, seeks
// each of its partitions back 300 records to read them again and commits
// there: its commits move backwards (REWOUND for a window).
func (d *Demo) replay(ctx context.Context, group, topic string) {
	opt := d.consumerOptions(group)
	opt.AutoCommitInterval = d.opt.CommitInterval
	c := d.subscribe(ctx, topic, opt)
	if c == nil {
		return
	}
	defer c.Close()
	next := time.Now().Add(d.opt.RewindEvery / 4)
	for ctx.Err() == nil {
		_, _ = c.ReadBatch(ctx, 500, 500*time.Millisecond)
		if d.opt.RewindEvery < 0 || time.Now().Before(next) {
			continue
		}
		next = time.Now().Add(d.opt.RewindEvery)
		for _, tp := range c.Assignment() {
			for _, p := range tp.Partitions {
				if pos := c.Position(tp.Topic, p); pos > 0 {
					// Seek back and commit the new position at once, as a
					// consumer resetting to replay does: the group's
					// commit moves backwards.
					to := max(pos-300, 0)
					if c.SeekToOffset(tp.Topic, p, to) == nil {
						_ = c.CommitOffset(ctx, tp.Topic, p, to-1)
					}
				}
			}
		}
	}
}

// queues keeps queue depths moving: a put loop slightly faster than a get
// loop on ORDER.Q, a bursty PAYMENT.Q and a trickle into the DLQ.
func (d *Demo) queues(ctx context.Context) {
	var s *ilink.Session
	for s == nil {
		var err error
		s, err = ilink.Dial(ctx, d.addrs, ilink.Options{ClientName: "demo-queues", AutoCommit: true})
		if err != nil {
			if !sleep(ctx, time.Second) {
				return
			}
			s = nil
		}
	}
	d.addCloser(s.Close)
	handles := map[string]*ilink.Queue{}
	for _, q := range Queues {
		h, err := s.AccessQueue(ctx, q.Name)
		if err != nil {
			d.logf("queue %s: %v", q.Name, err)
			return
		}
		handles[q.Name] = h
		if dlq, err := s.AccessQueue(ctx, q.Cfg.DeadLetterQueue); err == nil {
			handles[q.Cfg.DeadLetterQueue] = dlq
		}
	}
	// PAYMENT.Q's consumer is transacted: it rolls back what it cannot
	// settle (the poison messages), commits the rest.
	var tx *ilink.Session
	var pay *ilink.Queue
	if ts, err := ilink.Dial(ctx, d.addrs, ilink.Options{ClientName: "demo-settler"}); err == nil {
		d.addCloser(ts.Close)
		if pay, err = ts.AccessQueue(ctx, "PAYMENT.Q"); err == nil {
			tx = ts
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		// ORDER.Q: put 3, get 2 or 3 (grows slowly, drains when it passes 400).
		for i := 0; i < 3; i++ {
			_, _ = handles["ORDER.Q"].Put(ctx, fmt.Appendf(nil, `{"order":"order-%06d"}`, rng.IntN(200000)))
		}
		gets := 2
		if depth, err := handles["ORDER.Q"].Depth(ctx); err == nil && depth > 400 {
			gets = 6
		}
		for i := 0; i < gets; i++ {
			_, _ = handles["ORDER.Q"].Get(ctx, 0)
		}
		// The dead-letter queues: nobody in the demo moves their messages
		// back, so the demo takes the oldest beyond DeadLetterCap.
		if n%25 == 0 {
			d.trimDeadLetters(ctx, handles)
		}
		// PAYMENT.Q: bursts of 40 every 10 s (one of them poison every 20 s),
		// settled 4 per tick; a poison message is rolled back, and after
		// its second return the engine moves it to PAYMENT.DLQ.
		if n%50 == 0 {
			for i := 0; i < 40; i++ {
				body := fmt.Appendf(nil, `{"payment":%d}`, rng.IntN(1e6))
				if i == 20 && n%100 == 0 {
					body = []byte(`{"payment":"??","error":"schema validation failed"}`)
				}
				_, _ = handles["PAYMENT.Q"].Put(ctx, body)
			}
		}
		for i := 0; tx != nil && i < 4; i++ {
			m, err := pay.Get(ctx, 0)
			if err != nil {
				break
			}
			if strings.Contains(string(m.Payload), "schema validation failed") {
				_ = tx.Rollback(ctx)
			} else {
				_ = tx.Commit(ctx)
			}
		}
	}
}

// moveLeaders moves one ORDER.EVENT partition leader periodically.
func (d *Demo) moveLeaders(ctx context.Context) {
	for p := 0; ; p = (p + 1) % 6 {
		if !sleep(ctx, d.opt.LeaderMoveEvery) {
			return
		}
		parts, err := d.e.TopicPartitions("ORDER.EVENT")
		if err != nil || p >= len(parts) {
			continue
		}
		cur := parts[p]
		for _, n := range cur.InSync {
			if n != cur.Leader {
				if err := d.e.MovePartitionLeader("ORDER.EVENT", p, n); err != nil {
					d.logf("move leader: %v", err)
				}
				break
			}
		}
	}
}

// DeadLetterCap bounds the demo's dead-letter queues (default of
// Options.DeadLetterCap): PAYMENT.DLQ gets a poison message every 20 s and
// nobody moves dead letters back, so without a cap it grows for as long as
// the demo runs. Every 5 s the demo takes the oldest messages beyond the
// cap; the queue still shows a depth and, while it fills, growth.
const DeadLetterCap = 100

// trimDeadLetters takes every demo DLQ's oldest messages beyond the cap.
func (d *Demo) trimDeadLetters(ctx context.Context, handles map[string]*ilink.Queue) {
	for _, q := range Queues {
		h := handles[q.Cfg.DeadLetterQueue]
		if h == nil {
			continue
		}
		depth, err := h.Depth(ctx)
		if err != nil {
			continue
		}
		for i := d.opt.DeadLetterCap; i < depth; i++ {
			if _, err := h.Get(ctx, 0); err != nil {
				break
			}
		}
	}
}
