package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/views/tab"
)

// A read-only context refuses every mutating action with MIMQE_READ_ONLY
// without dialling: the admin client's choke point runs before its first
// connection, and a queue put or get is refused before its session.
func TestReadOnlyActionsNeverDial(t *testing.T) {
	t.Parallel()
	refuser := ilinktest.NewRefuser(t)
	addr := refuser.Addr
	s, err := New(Config{AdminAddrs: []string{addr}, DataAddrs: []string{addr}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	actions := map[string]func() error{
		"CreateTopic": func() error { return s.CreateTopic(ctx, tab.TopicSpec{Name: "T"}) },
		"DeleteTopic": func() error { return s.DeleteTopic(ctx, "T") },
		"FlushTopic":  func() error { return s.FlushTopic(ctx, "T") },
		"AlterTopic":  func() error { return s.AlterTopic(ctx, "T", "retention.ms=1") },
		"SeekGroup": func() error {
			_, err := s.SeekGroup(ctx, "G", "T", admin.SeekTarget{Earliest: true}, true)
			return err
		},
		"SeekGroupToTime": func() error {
			_, err := s.SeekGroupToTime(ctx, "G", "T", time.Now(), true)
			return err
		},
		"DeleteGroup":        func() error { return s.DeleteGroup(ctx, "G") },
		"SetClusterProperty": func() error { return s.SetClusterProperty(ctx, admin.ClusterPropertyChange{}) },
		"AddNode":            func() error { return s.AddNode(ctx, admin.ClusterNode{}) },
		"RemoveNode":         func() error { return s.RemoveNode(ctx, 2) },
		"RebalanceLeaders": func() error {
			_, err := s.RebalanceLeaders(ctx, true)
			return err
		},
		"ForceElection": func() error { return s.MovePartitionLeader(ctx, "T", 0, 2) },
		"MoveMessages": func() error {
			_, err := s.MoveMessages(ctx, "Q.DLQ", "Q", admin.MoveSelection{IDs: [][]byte{make([]byte, 16)}, PlanNext: 1}, true)
			return err
		},
		"ReinjectQuarantineIDs": func() error {
			_, err := s.ReinjectQuarantine(ctx, admin.ReinjectPlan{Dir: "DIR", Queue: "Q", IDs: [][]byte{make([]byte, 16)}})
			return err
		},
		"Put": func() error { _, err := s.PutMessages(ctx, "Q", [][]byte{[]byte("x")}, nil); return err },
		"Get": func() error {
			_, err := s.TakeMessage(ctx, "Q", nil)
			if err == nil || !strings.Contains(err.Error(), "Get refused") {
				return err
			}
			_, err = s.TakeMessage(ctx, "Q", make([]byte, 16)) // the take of a previewed message
			return err
		},
	}
	for call, fn := range actions {
		err := fn()
		if e := ilink.AsError(err); e == nil || e.Name != wire.ErrReadOnly || e.Tail != call+" refused: read-only mode" {
			t.Errorf("%s in a read-only context: %v, want MIMQE_READ_ONLY (%s refused: read-only mode)", call, err, call)
		}
	}
	if n := refuser.Accepts(); n != 0 {
		t.Fatalf("read-only actions dialled %d times", n)
	}
	// A read does dial: the count would have shown a mutation's dial.
	if _, err := s.ListTopics(ctx); err == nil {
		t.Fatal("a read through a listener that closes every connection succeeded")
	}
	if refuser.Accepts() == 0 {
		t.Fatal("the read did not dial")
	}
}
