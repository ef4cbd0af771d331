package admin

import (
	"context"
	"ilinkdash/ilink/ilinktest"
	"reflect"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// Every exported method of Service and Qmgr is classified here. A new
// method that is in neither list fails TestMethodsAreClassified, so a
// mutating call cannot escape TestReadOnlyRefusesEveryMutation.
var mutatingMethods = map[string]bool{
	"Service.ShutdownService": true, "Service.PatchService": true,
	"Service.SetClusterProperty": true, "Service.AddNode": true, "Service.RemoveNode": true,
	"Service.CreateCluster": true, "Service.JoinCluster": true,
	"Qmgr.StopNode": true, "Qmgr.StartNode": true, "Qmgr.KillNode": true, "Qmgr.ForceElection": true,
	"Qmgr.CreateTopic": true, "Qmgr.DeleteTopic": true, "Qmgr.FlushTopic": true, "Qmgr.AlterTopic": true,
	"Qmgr.Publish": true, "Qmgr.ReloadQueue": true, "Qmgr.ReinjectQuarantine": true, "Qmgr.ReinjectQuarantineIDs": true,
	"Qmgr.SetProperty": true, "Qmgr.SetSubGroupTimeout": true,
	"Qmgr.SeekGroup": true, "Qmgr.SeekGroupToTime": true, "Qmgr.DeleteGroup": true,
	"Qmgr.DefineQueue": true, "Qmgr.DeleteQueue": true, "Qmgr.MoveMessages": true, "Qmgr.RebalanceLeaders": true,
}

var readMethods = map[string]bool{
	"Service.QmgrList": true, "Service.AccessAdminQmgr": true, "Service.DiagnoseClusterDefinition": true,
	"Service.ClusterLeadTable": true, "Service.ClusterLeadTableParsed": true, "Service.SpokeList": true,
	"Service.SwitchToSpoke": true, "Service.Close": true, "Service.Disconnect": true, "Service.ReadOnly": true,
	"Service.Addr": true, "Service.Hello": true, "Service.EngineVersion": true, "Service.Cluster": true,
	"Service.QueueManager": true, "Service.NodeID": true, "Service.ClusterProperty": true,
	"Service.Failovers": true, "Service.LearnAdmins": true, "Service.Via": true,
	"Qmgr.Name": true, "Qmgr.Service": true, "Qmgr.Nodes": true, "Qmgr.Topics": true, "Qmgr.DescribeTopic": true,
	"Qmgr.StatSeries": true, "Qmgr.Queues": true, "Qmgr.QueueProperty": true, "Qmgr.QuarantineList": true,
	"Qmgr.ScanQuarantine": true, "Qmgr.LoadInfo": true, "Qmgr.ReplicationStatus": true, "Qmgr.Property": true,
	"Qmgr.SubGroupTimeout": true, "Qmgr.GroupList": true, "Qmgr.DescribeGroup": true, "Qmgr.PlanSeekGroup": true,
	"Qmgr.SubscriptionListText": true, "Qmgr.SubscriptionList": true,
	"Qmgr.BrowseQueue": true, "Qmgr.BrowseQueueAt": true, "Qmgr.ScanQuarantineBodies": true, "Qmgr.PlanMoveMessages": true, "Qmgr.PlanRebalanceLeaders": true,
}

type method struct {
	name string // Type.Method
	recv reflect.Value
	m    reflect.Method
}

func methodsOf(s *Service, q *Qmgr) []method {
	var out []method
	for _, r := range []struct {
		prefix string
		v      any
	}{{"Service.", s}, {"Qmgr.", q}} {
		v := reflect.ValueOf(r.v)
		for i := 0; i < v.Type().NumMethod(); i++ {
			m := v.Type().Method(i)
			out = append(out, method{r.prefix + m.Name, v, m})
		}
	}
	return out
}

func TestMethodsAreClassified(t *testing.T) {
	var unclassified []string
	for _, m := range methodsOf(&Service{}, &Qmgr{}) {
		if mutatingMethods[m.name] == readMethods[m.name] { // neither, or both
			unclassified = append(unclassified, m.name)
		}
	}
	sort.Strings(unclassified)
	if len(unclassified) > 0 {
		t.Fatalf("classify these methods in readonly_test.go (mutating or read): %v", unclassified)
	}
	for name := range mutatingMethods {
		found := false
		for _, m := range methodsOf(&Service{}, &Qmgr{}) {
			found = found || m.name == name
		}
		if !found {
			t.Fatalf("mutatingMethods lists %s, which does not exist", name)
		}
	}
}

// call invokes m with a background context and zero values.
func call(m method) []reflect.Value {
	ft := m.m.Type
	args := []reflect.Value{m.recv}
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	for i := 1; i < ft.NumIn(); i++ {
		in := ft.In(i)
		if in == ctxType {
			args = append(args, reflect.ValueOf(context.Background()))
			continue
		}
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			break
		}
		args = append(args, reflect.Zero(in))
	}
	return m.m.Func.Call(args)
}

// refusesEveryMutation calls every mutating method of s and q and requires
// MIMQE_READ_ONLY (<method> refused: read-only mode) from each.
func refusesEveryMutation(t *testing.T, s *Service, q *Qmgr) {
	t.Helper()
	n := 0
	for _, m := range methodsOf(s, q) {
		if !mutatingMethods[m.name] {
			continue
		}
		n++
		out := call(m)
		err, _ := out[len(out)-1].Interface().(error)
		e := ilink.AsError(err)
		short := m.name[len("Service."):]
		if m.name[0] == 'Q' {
			short = m.name[len("Qmgr."):]
		}
		if e == nil || e.Name != wire.ErrReadOnly || e.Tail != short+" refused: read-only mode" || e.Kind != ilink.KindRejected {
			t.Fatalf("%s in read-only mode: %v, want MIMQE_READ_ONLY (%s refused: read-only mode)", m.name, err, short)
		}
	}
	if n != len(mutatingMethods) {
		t.Fatalf("walked %d mutating methods, %d listed", n, len(mutatingMethods))
	}
}

func TestReadOnlyRefusesEveryMutation(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	var requests atomic.Int32
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code != wire.CodeHello {
			requests.Add(1)
		}
		return engine.ControlAction{}
	})
	s := connect(t, e, 1, Options{ReadOnly: true})
	q := s.AccessAdminQmgr("")
	if !s.ReadOnly() {
		t.Fatal("ReadOnly() false")
	}
	refusesEveryMutation(t, s, q)
	if got := requests.Load(); got != 0 {
		t.Fatalf("%d requests reached the engine in read-only mode", got)
	}
	// Reads still work.
	if _, err := q.Topics(testCtx(t)); err != nil {
		t.Fatalf("read in read-only mode: %v", err)
	}
	if _, err := s.ClusterProperty(testCtx(t), ""); err != nil {
		t.Fatalf("read in read-only mode: %v", err)
	}
	if requests.Load() != 2 {
		t.Fatalf("%d requests for two reads", requests.Load())
	}
}

// A read-only service made by New refuses every mutating call before it
// dials: on a listener that counts its accepts and never answers, no
// mutation is accepted as a connection; the first read is (that dial is
// what the count would show).
func TestReadOnlyRefusesBeforeDialling(t *testing.T) {
	t.Parallel()
	hole := ilinktest.NewBlackHole(t)
	s, err := New(hole.Addr, Options{ReadOnly: true, DialTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := s.AccessAdminQmgr("")
	refusesEveryMutation(t, s, q)
	if n := hole.Accepts(); n != 0 {
		t.Fatalf("the refused mutations dialled: the listener accepted %d connections", n)
	}
	if _, err := q.Topics(testCtx(t)); err == nil {
		t.Fatal("a read through a listener that never answers succeeded")
	}
	if n := hole.Accepts(); n != 1 {
		t.Fatalf("the read dialled %d times, want once", n)
	}
}
