package cluster

import (
	"testing"
)

func TestClassifyDefErr(t *testing.T) {
	tests := []struct {
		text string
		want defOutcome
	}{
		{"MIMQE_CLUSTER_NOT_COMMITTED (not committed - retry)", outNotCommitted},
		{"MIMQE_CLUSTER_NOT_COMMITTED (outcome unknown - check VIEW CLUSTER)", outUnknown},
		{"MIMQE_CLUSTER_NOT_COMMITTED (earlier change still pending - retry)", outPending},
		{"MIMQE_CLUSTER_DEF_MOVED", outMoved},
		{"MIMQE_INVALID_ARGUMENT (qmgr or address is node 2's)", outNodeExists},
		{"MIMQE_INVALID_PROPERTY (REPLICAS 5 exceeds 3 data nodes)", outInvalid},
		{"MIMQE_CONNECTION_LOST", outOther},
	}
	for _, tt := range tests {
		if got := classifyDefErr(errText(tt.text)); got != tt.want {
			t.Errorf("classify(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if classifyDefErr(nil) != outOK {
		t.Error("nil is not OK")
	}
}

type errText string

func (e errText) Error() string { return string(e) }
