package chaos

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

const (
	topic = "chaos"
	group = "chaos-group"
	// readWindow is the most records one ReadBatch hands a member.
	readWindow = 500
	// maxOutstanding bounds a producer's unanswered records, so a long
	// outage does not buffer without end.
	maxOutstanding = 5000
)

// runner is one experiment in progress.
type runner struct {
	cfg Config
	e   *engine.Engine
	h   *history
	t0  time.Time // the start of the fault phase

	prods []*ilink.Producer
	addrs string

	// The group's members: started, crashed (crash-member) and replaced
	// while the experiment runs. work is the context of their read loops.
	work     context.Context
	memWG    sync.WaitGroup // read loops, crashed members' closes, restarts
	mu       sync.Mutex
	mems     []*member // live members
	nextMem  int       // the index of the next member started
	crashing bool      // a crashed member is not replaced yet
}

// member is one consumer of the group with its read loop.
type member struct {
	idx    int
	c      *consumer.Consumer
	cancel context.CancelFunc // stops the read loop
	done   chan struct{}      // closed when the read loop returned
}

// Run runs one experiment and checks its history. The error is for a run
// that could not be carried out (the engine did not start, a client could
// not connect); anomalies are in the Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	e, err := startEngine(cfg)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	r := &runner{cfg: cfg, e: e, h: newHistory(cfg.Producers), addrs: strings.Join(e.DataAddrs(), ",")}
	sched, err := r.newSchedule()
	if err != nil {
		return nil, err
	}
	work, stopWork := context.WithCancel(ctx)
	defer stopWork()
	r.work = work
	defer r.closeClients()
	if err := r.startClients(ctx); err != nil {
		return nil, err
	}
	backwards, pst := r.exercise(ctx, sched, stopWork)
	r.closeClients()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	res, err := r.check()
	if err != nil {
		return nil, err
	}
	res.Faults, res.Skipped = sched.Counts(), sched.Skipped()
	res.BackwardsCommits = backwards
	res.ProducerIDResets, res.PossibleDuplicates, res.Retries = pst.ProducerIDResets, pst.PossibleDuplicates, pst.Retries
	return res, nil
}

// startEngine starts the experiment's three-node engine with its topic;
// on an error the engine is closed again.
func startEngine(cfg Config) (*engine.Engine, error) {
	e, err := engine.Start(engine.Config{
		Nodes:               3,
		ElectionDelay:       cfg.ElectionDelay,
		CoordinatorLoadTime: 200 * time.Millisecond,
		HeartbeatInterval:   100 * time.Millisecond,
		ReplicaLagMax:       time.Second,
		QueueManager:        "QMCHAOS" + strconv.FormatInt(cfg.Seed, 36),
		PlantedBugNoDedup:   cfg.PlantedBug,
		Logf:                cfg.Logf,
	})
	if err != nil {
		return nil, err
	}
	if err := e.SetSubGroupTimeout(3); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.CreateTopic(topic, fmt.Sprintf("partitions=%d,replicas=3,minSync=2", cfg.Partitions)); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// newSchedule is the run's fault schedule, its faults recorded in the
// history and crash-member done by the runner.
func (r *runner) newSchedule() (*Schedule, error) {
	cfg := r.cfg
	return NewSchedule(r.e, ScheduleConfig{
		Seed: cfg.Seed, Faults: cfg.Faults, GapMin: cfg.FaultGapMin, GapMax: cfg.FaultGapMax,
		Topic: topic, Group: group, MaxPartitions: cfg.MaxPartitions, Logf: cfg.Logf,
		CrashMember: func(pick int) (string, func(), bool) { return r.crashMember(pick) },
		OnFault: func(kind, detail string, parts int, windowed bool) func(time.Time) {
			cfg.Logf("chaos: fault %s %s", kind, detail)
			f := r.h.fault(kind, detail, parts, windowed)
			return func(at time.Time) { r.h.measureFrom(f, at) }
		},
	})
}

// exercise runs the started clients through the experiment: producers
// sending and the commit and recovery watchers running through the fault
// phase and the calm phase, then the drain. stopWork ends the members'
// read loops and the watchers once the group has read everything. It
// returns the commits seen going backwards and the producers' stats.
func (r *runner) exercise(ctx context.Context, sched *Schedule, stopWork context.CancelFunc) (backwards int, pst ilink.ProducerStats) {
	var wg sync.WaitGroup
	var sendWG sync.WaitGroup
	stopSend := make(chan struct{})
	for i, p := range r.prods {
		sendWG.Add(1)
		go func() { defer sendWG.Done(); r.produce(i, p, stopSend) }()
	}
	wg.Add(2)
	go func() { defer wg.Done(); backwards = r.watchCommits(r.work) }()
	go func() { defer wg.Done(); r.watchRecovery(r.work) }()

	// The fault phase, then everything healed, then a calm phase long
	// enough for the last faults to show their recovery.
	r.t0 = time.Now()
	sched.Run(ctx, r.t0.Add(r.cfg.Duration))
	select {
	case <-ctx.Done():
	case <-time.After(r.cfg.ElectionDelay + 2*time.Second):
	}

	// Drain: stop sending, let every record complete, let the group read
	// everything acknowledged.
	close(stopSend)
	sendWG.Wait()
	r.flushProducers(ctx)
	r.waitConsumed(ctx, 30*time.Second)
	r.h.checkRecovery(time.Now())
	stopWork()
	wg.Wait()
	r.memWG.Wait()
	return backwards, r.producerStats()
}

// flushProducers waits for each producer's records to complete (at most
// 90 s each), logging a flush that did not.
func (r *runner) flushProducers(ctx context.Context) {
	for _, p := range r.prods {
		fctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		if err := p.Flush(fctx); err != nil {
			r.cfg.Logf("chaos: flush: %v", err)
		}
		cancel()
	}
}

// producerStats sums the producers' resets, possible duplicates and
// retries.
func (r *runner) producerStats() ilink.ProducerStats {
	var pst ilink.ProducerStats
	for _, p := range r.prods {
		st := p.Stats()
		pst.ProducerIDResets += st.ProducerIDResets
		pst.PossibleDuplicates += st.PossibleDuplicates
		pst.Retries += st.Retries
	}
	return pst
}

func (r *runner) startClients(ctx context.Context) error {
	for i := 0; i < r.cfg.Producers; i++ {
		p, err := ilink.NewProducer(ctx, r.addrs, ilink.ProducerConfig{
			ClientName:        fmt.Sprintf("chaos-p%d", i),
			Acks:              ilink.AcksAll,
			LingerMs:          2,
			Retries:           1 << 20, // only the delivery timeout ends a record
			RetryBackoffMs:    50,
			DeliveryTimeoutMs: 60_000,
			MetadataMaxAgeMs:  500,
			Logf:              r.cfg.Logf,
		})
		if err != nil {
			return fmt.Errorf("chaos: producer %d: %w", i, err)
		}
		r.prods = append(r.prods, p)
	}
	for range r.cfg.Members {
		if err := r.startMember(ctx); err != nil {
			return err
		}
	}
	return nil
}

// startMember subscribes a new member of the group and starts its read
// loop.
func (r *runner) startMember(ctx context.Context) error {
	r.mu.Lock()
	idx := r.nextMem
	r.nextMem++
	r.mu.Unlock()
	o := consumer.NewOptions()
	o.Group = group
	o.ClientName = fmt.Sprintf("chaos-m%d", idx)
	o.AutoCommitInterval = 200 * time.Millisecond
	o.Logf = r.cfg.Logf
	c, err := consumer.Subscribe(ctx, r.addrs, topic, o)
	if err != nil {
		return fmt.Errorf("chaos: member %d: %w", idx, err)
	}
	rctx, cancel := context.WithCancel(r.work)
	m := &member{idx: idx, c: c, cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	r.mems = append(r.mems, m)
	r.mu.Unlock()
	r.memWG.Add(1)
	go func() {
		defer r.memWG.Done()
		defer close(m.done)
		r.consume(rctx, idx, c)
	}()
	return nil
}

// crashMember is the crash-member fault: member pick (of the live ones)
// dies without a final commit or a LEAVE. Its group requests are cut
// first (an engine control closes the connection of any request carrying
// its member id), then its read loop stops and it is closed: the commit
// and the LEAVE of the close go nowhere, and the coordinator keeps it
// until its session timeout. At most one crash waits for its replacement,
// and at least one member always lives.
func (r *runner) crashMember(pick int) (string, func(), bool) {
	r.mu.Lock()
	if r.crashing || len(r.mems) < 2 {
		r.mu.Unlock()
		return "", nil, false
	}
	i := pick % len(r.mems)
	m := r.mems[i]
	id, _ := m.c.MemberID()
	if id == "" {
		r.mu.Unlock()
		return "", nil, false
	}
	r.mems = append(r.mems[:i:i], r.mems[i+1:]...)
	r.crashing = true
	r.mu.Unlock()
	remove := r.e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if memberOf(ev) == id {
			return engine.ControlAction{CloseNow: true}
		}
		return engine.ControlAction{}
	})
	m.cancel()
	<-m.done
	r.h.crash(m.idx, r.e.GroupCommits(group)[topic])
	r.memWG.Add(1)
	go func() {
		defer r.memWG.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = m.c.CloseContext(ctx) // the commit and the LEAVE are cut: a crash
		remove()
	}()
	restart := func() {
		r.memWG.Add(1)
		go func() {
			defer r.memWG.Done()
			if r.work.Err() == nil {
				if err := r.startMember(r.work); err != nil && r.work.Err() == nil {
					r.cfg.Logf("chaos: restart after the crash of member %d: %v", m.idx, err)
				}
			}
			r.mu.Lock()
			r.crashing = false
			r.mu.Unlock()
		}()
	}
	return fmt.Sprintf("member %d (%s)", m.idx, id), restart, true
}

// memberOf is the member id a group request carries ("" for any other).
func memberOf(ev *engine.ControlEvent) string {
	switch ev.Code {
	case wire.CodeJoinGroup:
		var m wire.JoinGroupRequest
		if wire.Decode(ev.Body, &m) == nil {
			return m.MemberID
		}
	case wire.CodeHeartbeat, wire.CodeLeaveGroup:
		var m wire.MemberRequest
		if wire.Decode(ev.Body, &m) == nil {
			return m.MemberID
		}
	case wire.CodeOffsetCommit:
		var m wire.OffsetCommitRequest
		if wire.Decode(ev.Body, &m) == nil {
			return m.MemberID
		}
	}
	return ""
}

func (r *runner) closeClients() {
	r.mu.Lock()
	mems := r.mems
	r.mems = nil
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range mems {
		wg.Add(1)
		go func() { defer wg.Done(); m.cancel(); m.c.Close() }()
	}
	for _, p := range r.prods {
		wg.Add(1)
		go func() { defer wg.Done(); p.Close() }()
	}
	wg.Wait()
	r.prods = nil
}

// produce sends producer i's records: keys p<i>k<n mod Keys>, values
// "<i> <n> <send time>", Rate per second, until stop.
func (r *runner) produce(i int, p *ilink.Producer, stop <-chan struct{}) {
	const tick = 10 * time.Millisecond
	per := max(r.cfg.Rate*int(tick)/int(time.Second), 1)
	t := time.NewTicker(tick)
	defer t.Stop()
	var open int64
	var mu sync.Mutex
	n := 0
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		mu.Lock()
		busy := open >= maxOutstanding
		mu.Unlock()
		if busy {
			continue
		}
		for range per {
			k := n
			sentNs := time.Now().UnixNano()
			r.h.sent(i, k)
			mu.Lock()
			open++
			mu.Unlock()
			p.Send(&ilink.ProducerRecord{
				Topic: topic,
				Key:   []byte(fmt.Sprintf("p%dk%d", i, k%r.cfg.Keys)),
				Value: value(i, k, sentNs),
			}, func(md ilink.RecordMetadata, err error) {
				r.h.outcome(i, k, md.Partition, md.Offset, sentNs, err)
				mu.Lock()
				open--
				mu.Unlock()
			})
			n++
		}
	}
}

// consume reads as member i until ctx ends.
func (r *runner) consume(ctx context.Context, i int, c *consumer.Consumer) {
	for ctx.Err() == nil {
		recs, err := c.ReadBatch(ctx, readWindow, 100*time.Millisecond)
		if err != nil {
			if !ilink.IsNoMessage(err) && ctx.Err() == nil {
				r.cfg.Logf("chaos: member %d: read: %v", i, err)
				time.Sleep(20 * time.Millisecond)
			}
			continue
		}
		for _, rec := range recs {
			_, _, sentNs, ok := parseValue(rec.Value)
			if !ok {
				continue
			}
			r.h.delivered(i, rec.Partition, rec.Offset, sentNs)
		}
	}
}

// watchCommits polls the group's durable commits and counts those seen
// lower than a value seen before.
func (r *runner) watchCommits(ctx context.Context) int {
	last := map[int32]int64{}
	backwards := 0
	for {
		select {
		case <-ctx.Done():
			return backwards
		case <-time.After(50 * time.Millisecond):
		}
		for p, o := range r.e.GroupCommits(group)[topic] {
			if prev, ok := last[p]; ok && o < prev {
				backwards++
				r.h.mu.Lock()
				r.h.example("commit of partition %d went back from %d to %d", p, prev, o)
				r.h.mu.Unlock()
			}
			last[p] = max(last[p], o)
		}
	}
}

func (r *runner) watchRecovery(ctx context.Context) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.h.checkRecovery(now)
		}
	}
}

// waitConsumed waits until the group has delivered every acknowledged
// record, or d passes.
func (r *runner) waitConsumed(ctx context.Context, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		missing := 0
		r.h.mu.Lock()
		for _, ss := range r.h.sends {
			for _, s := range ss {
				if s.state == acked && r.h.deliv[tp{s.part, s.off}] == 0 {
					missing++
				}
			}
		}
		r.h.mu.Unlock()
		if missing == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readBack reads every partition of the topic once the cluster has healed:
// each partition led, its high watermark at its log end.
func (r *runner) readBack() ([][]recordAt, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		parts, err := r.e.TopicPartitions(topic)
		if err != nil {
			return nil, err
		}
		ready := true
		for _, p := range parts {
			if p.Leader == 0 || p.HighWatermark != p.EndOffset {
				ready = false
			}
		}
		if ready {
			out := make([][]recordAt, len(parts))
			for i, p := range parts {
				recs, err := r.e.ReadPartition(topic, i, p.StartOffset, 0)
				if err != nil {
					return nil, err
				}
				for _, rec := range recs {
					out[i] = append(out[i], recordAt{off: rec.Offset, key: string(rec.Key), value: rec.Value})
				}
			}
			return out, nil
		}
		if time.Now().After(deadline) {
			return nil, errors.New("chaos: the cluster did not heal: some partition has no leader or an uncommitted tail")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type recordAt struct {
	off   int64
	key   string
	value []byte
}
