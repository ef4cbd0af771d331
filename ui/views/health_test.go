package views

import (
	"testing"
	"time"

	"ilinkdash/ilink/admin"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// series builds samples every 2 s from lags; consumed values are given
// when cons is non-nil.
func series(lags []int64, cons []float64) []lagSample {
	out := make([]lagSample, len(lags))
	for i, l := range lags {
		out[i] = lagSample{At: t0.Add(time.Duration(i) * 2 * time.Second), Lag: l}
		if cons != nil {
			out[i].Consumed, out[i].HasConsumed = cons[i], true
		}
	}
	return out
}

func rampF(n int, start, step float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = start + float64(i)*step
	}
	return out
}

func rampI(n int, start, step int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = start + int64(i)*step
	}
	return out
}

func TestEvaluateHealth(t *testing.T) {
	stable := admin.GroupStable
	now := func(h []lagSample) time.Time {
		if len(h) == 0 {
			return t0
		}
		return h[len(h)-1].At
	}
	saw := []int64{100, 140, 180, 90, 130, 170, 85, 125, 165, 95} // commits every ~5 s, keeping up
	behind := []int64{100, 140, 180, 150, 190, 230, 200, 240, 280, 250}
	tests := []struct {
		name    string
		state   admin.GroupState
		members int
		hist    []lagSample
		want    Health
	}{
		{"dead", admin.GroupDead, 0, nil, HealthDead},
		{"preparing rebalance", admin.GroupPreparingRebalance, 2, series(rampI(10, 100, 50), nil), HealthRebalancing},
		{"completing rebalance", admin.GroupCompletingRebalance, 2, nil, HealthRebalancing},
		{"empty state", admin.GroupEmpty, 0, series(rampI(10, 100, 50), nil), HealthEmpty},
		{"no member", stable, 0, series(rampI(10, 100, 50), nil), HealthEmpty},
		{"caught up", stable, 1, series([]int64{5, 3, 0}, nil), HealthOK},
		{"never committed", stable, 1, series([]int64{-1, -1, -1}, nil), HealthOK},
		{"too few samples", stable, 1, series([]int64{100, 200}, nil), HealthOK},
		{"window too short", stable, 1, series(rampI(7, 100, 50), nil), HealthOK}, // 12 s < 15 s
		{"zero within the window", stable, 1, series([]int64{0, 50, 100, 150, 200, 250, 300, 350, 400, 450}, rampF(10, 0, 10)), HealthOK},
		{"stalled: no progress, lag grows", stable, 2, series(rampI(10, 1000, 80), rampF(10, 5000, 0)), HealthStalled},
		{"stalled: no progress, nothing produced", stable, 2, series(rampI(10, 500, 0), rampF(10, 5000, 0)), HealthStalled},
		{"stalled without estimate: lag never drops", stable, 2, series(rampI(10, 1000, 80), nil), HealthStalled},
		{"lagging: progress but trend up", stable, 1, series(behind, rampF(10, 5000, 60)), HealthLagging},
		{"lagging without estimate", stable, 1, series(behind, nil), HealthLagging},
		{"saw-tooth keeping up", stable, 1, series(saw, rampF(10, 5000, 80)), HealthOK},
		{"draining", stable, 1, series(rampI(10, 5000, -300), rampF(10, 5000, 400)), HealthOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EvaluateHealth(tt.state, tt.members, tt.hist, now(tt.hist)); got != tt.want {
				t.Errorf("EvaluateHealth = %v, want %v", got, tt.want)
			}
		})
	}
	// Old samples leave the window: a stall 40 s ago followed by progress.
	h := series(rampI(25, 1000, 0), append(rampF(10, 100, 0), rampF(15, 100, 50)...))
	for i := 10; i < 25; i++ {
		h[i].Lag = 1000 - int64(i-10)*10
	}
	if got := EvaluateHealth(stable, 1, h, h[len(h)-1].At); got != HealthOK {
		t.Errorf("recovered group = %v, want OK", got)
	}
}

func TestDrainText(t *testing.T) {
	tests := []struct {
		lag        int64
		rate, prod float64
		want       string
	}{
		{-1, 10, 0, "no commit"},
		{0, 10, 10, "caught up"},
		{100, -1, -1, "…"},
		{100, 0, 5, "stalled"},
		{100, 10, 10, "steady"},
		{100, 10, 20, "falling behind"},
		{1000, 20, 10, "≈ 1m40s"},
		{1 << 50, 1, 0, "> 30d"},
	}
	for _, tt := range tests {
		if got := drainText(tt.lag, tt.rate, tt.prod); got != tt.want {
			t.Errorf("drainText(%d, %v, %v) = %q, want %q", tt.lag, tt.rate, tt.prod, got, tt.want)
		}
	}
}

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

func TestParsers(t *testing.T) {
	now := t0
	for in, want := range map[string]time.Time{
		"2026-11-30T09:00:00Z": t0.Add(-time.Hour),
		"2026-11-30 09:30":     t0.Add(-30 * time.Minute),
		"09:59:30":             t0.Add(-30 * time.Second),
		"-15m":                 t0.Add(-15 * time.Minute),
		"2h ago":               t0.Add(-2 * time.Hour),
		"1d":                   t0.Add(-24 * time.Hour),
	} {
		got, err := parseSeekTime(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseSeekTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseSeekTime("yesterday-ish", now); err == nil {
		t.Error("nonsense time accepted")
	}
	for in, want := range map[string]int64{"": 0, "forever": -1, "7d": 7 * 86_400_000, "1w2d": 9 * 86_400_000, "90m": 5_400_000} {
		if got, err := parseRetention(in); err != nil || got != want {
			t.Errorf("parseRetention(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseRetention("7x"); err == nil {
		t.Error("bad unit accepted")
	}
	for in, want := range map[string]int64{"": 0, "1GiB": 1 << 30, "500MB": 500e6, "1024": 1024} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
