package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/schema"
)

// Set is demo data for a fresh engine: the topics, queues and quarantine
// entries Seed creates, with their first records and messages. It is the
// one seeder: the live demo (Start) creates its topics and queues with it,
// and the commands that run on an embedded engine (get, describe, tail,
// search) seed their own Sets.
type Set struct {
	Topics     []Topic
	Queues     []Queue
	Quarantine []engine.QuarantineEntry
	// Feed, when positive, adds one record to every topic this often until
	// Seed's stop is called (tail and search then have something arriving).
	Feed time.Duration
}

// Topic is a topic of a Set and how many records Seed writes to it at
// once (round robin over its partitions: an even spread).
type Topic struct {
	Name, Props string
	Records     int
}

// Queue is a queue of a Set (its definition) and how many messages Seed
// puts.
type Queue struct {
	Name     string
	Cfg      engine.QueueConfig
	Messages int
}

// Snapshot is the still picture of the commands that print once (get,
// describe, … --embedded): three topics (ORDER.EVENT's 12 records are 4 per
// partition), two queues (ORDER.IN holds 5 messages) and a quarantined
// message.
var Snapshot = Set{
	Topics: []Topic{
		{Name: "ORDER.EVENT", Props: "partitions=3", Records: 12},
		{Name: "PAYMENT.RESULT", Props: "partitions=2", Records: 4},
		{Name: "AUDIT.LOG", Props: "partitions=1,replicas=2"},
	},
	Queues:     []Queue{{Name: "ORDER.IN", Messages: 5}, {Name: "PAYMENT.OUT"}},
	Quarantine: []engine.QuarantineEntry{{Dir: "q1", Queue: "ORDER.IN", Payload: []byte("poison")}},
}

// TailTopics are the topics of TailSet.
var TailTopics = []string{"ORDER.EVENT", "ORDER.KR.EVENT", "PAYMENT.RESULT"}

// TailSet is what `tail --embedded` and `search --embedded` read: the
// TailTopics (and target, when it names a topic that is not one of them),
// 3 partitions each, 20 records each at once and one more every 250 ms.
func TailSet(target string) Set {
	names := slices.Clone(TailTopics)
	if !consumer.IsPattern(target) && !strings.HasPrefix(target, "SYSTEM.") && !slices.Contains(names, target) {
		names = append(names, target)
	}
	s := Set{Feed: 250 * time.Millisecond}
	for _, n := range names {
		s.Topics = append(s.Topics, Topic{Name: n, Props: "partitions=3", Records: 20})
	}
	return s
}

// Seed creates s in e: its topics (one that exists already is kept), its
// queues, its quarantine entries, then its records (admin publish, round
// robin over the partitions) and messages, and starts the feed. stop ends
// the feed and closes its connection; it is safe to call more than once.
func Seed(e *engine.Engine, s Set) (stop func(), err error) {
	nodes := len(e.Nodes())
	for _, t := range s.Topics {
		if err := e.CreateTopic(t.Name, fitted(t.Props, nodes)); err != nil && !isExists(err) {
			return nil, fmt.Errorf("demo: create topic %s: %w", t.Name, err)
		}
	}
	for _, q := range s.Queues {
		if err := e.DefineQueue(q.Name, q.Cfg); err != nil {
			return nil, fmt.Errorf("demo: define queue %s: %w", q.Name, err)
		}
	}
	if len(s.Quarantine) > 0 {
		if err := e.AddQuarantine(s.Quarantine...); err != nil {
			return nil, fmt.Errorf("demo: quarantine: %w", err)
		}
	}
	if err := putMessages(e, s.Queues); err != nil {
		return nil, err
	}
	records := 0
	for _, t := range s.Topics {
		records += t.Records
	}
	if records == 0 && s.Feed <= 0 {
		return func() {}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	svc, err := admin.Connect(ctx, e.AdminAddrs()[0], admin.Options{ClientName: "ilinkdash-demo"})
	if err != nil {
		return nil, fmt.Errorf("demo: seed records: %w", err)
	}
	codecs, err := encoders()
	if err != nil {
		svc.Close()
		return nil, err
	}
	w := &seedWriter{qm: svc.AccessAdminQmgr(""), rng: rand.New(rand.NewPCG(5, 6)), codecs: codecs}
	for _, t := range s.Topics {
		for range t.Records {
			if err := w.write(ctx, t.Name); err != nil {
				svc.Close()
				return nil, fmt.Errorf("demo: seed records of %s: %w", t.Name, err)
			}
		}
	}
	if s.Feed <= 0 {
		svc.Close()
		return func() {}, nil
	}
	fctx, fcancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(s.Feed)
		defer tick.Stop()
		for {
			select {
			case <-fctx.Done():
				return
			case <-tick.C:
			}
			for _, t := range s.Topics {
				if fctx.Err() != nil {
					return
				}
				// Not on fctx: a publish abandoned on the wire would still
				// land after stop returned. A failed write is skipped: the
				// feed is demo traffic.
				wctx, cancel := context.WithTimeout(context.Background(), feedWriteTimeout)
				_ = w.write(wctx, t.Name)
				cancel()
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			fcancel()
			wg.Wait()
			svc.Close()
		})
	}, nil
}

// feedWriteTimeout bounds one publish of the feed, which stop waits for.
const feedWriteTimeout = 5 * time.Second

// seedWriter writes the demo's records (the live traffic's kind) one
// admin publish each. Every tenth is binary with terminal escapes, so a
// tail shows base64 and the sanitizer at work; the schema topics'
// records are encoded with their built-in schemas (codecs), as the live
// traffic's are, so `tail --embedded SHOP.ORDERS` decodes them.
type seedWriter struct {
	qm     *admin.Qmgr
	rng    *rand.Rand
	seq    int
	codecs map[string]schema.Codec
}

func (w *seedWriter) write(ctx context.Context, topic string) error {
	w.seq++
	key, value := record(w.rng, topic, w.seq)
	if c := w.codecs[topic]; c != nil {
		enc, err := c.Encode(value)
		if err != nil {
			return fmt.Errorf("encode with %s: %w", c.Name(), err)
		}
		value = enc
	} else if w.seq%10 == 0 {
		value = []byte{0x00, 0xff, 0x1b, '[', '2', 'J', 0xfe, byte(w.seq)}
	}
	_, err := w.qm.Publish(ctx, topic, key, value, headers(w.rng)...)
	return err
}

// putMessages puts each queue's first messages through a queue session.
func putMessages(e *engine.Engine, qs []Queue) error {
	n := 0
	for _, q := range qs {
		n += q.Messages
	}
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := ilink.Dial(ctx, strings.Join(e.DataAddrs(), ","), ilink.Options{ClientName: "ilinkdash-demo", AutoCommit: true})
	if err != nil {
		return fmt.Errorf("demo: queue session: %w", err)
	}
	defer sess.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, q := range qs {
		if q.Messages == 0 {
			continue
		}
		h, err := sess.AccessQueue(ctx, q.Name)
		if err != nil {
			return fmt.Errorf("demo: queue %s: %w", q.Name, err)
		}
		for range q.Messages {
			if _, err := h.Put(ctx, fmt.Appendf(nil, `{"order":"order-%06d"}`, rng.IntN(200000))); err != nil {
				return fmt.Errorf("demo: put to %s: %w", q.Name, err)
			}
		}
	}
	return nil
}

// fitted is a topic's props with replicas and minSync no larger than the
// cluster: the demo's 3-replica topics were refused on a smaller engine
// (engine --demo --nodes 1).
func fitted(props string, nodes int) string {
	parts := strings.Split(props, ",")
	replicas := nodes
	for _, key := range []string{"replicas", "minSync"} {
		for i, p := range parts {
			k, v, _ := strings.Cut(p, "=")
			n, err := strconv.Atoi(v)
			if k != key || err != nil {
				continue
			}
			if k == "replicas" {
				replicas = min(n, nodes)
				n = replicas
			} else {
				n = min(n, replicas)
			}
			parts[i] = k + "=" + strconv.Itoa(n)
		}
	}
	return strings.Join(parts, ",")
}
