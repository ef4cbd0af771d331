package history

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// fill records groups for span at one poll every 10 s: half of them
// healthy (a lag of a few records, a steady rate), three in ten busy (a
// lag wandering by hundreds, a rate near 1,000/s), one in ten stalled (a
// growing lag, no commits) and one in ten stopped (a constant lag, no
// rate); noisy makes every group busy (the worst case).
func fill(tb testing.TB, st *Store, c *clock, groups int, span time.Duration, noisy bool) {
	r := rand.New(rand.NewPCG(5, 6))
	lag := make([]float64, groups)
	names := make([]string, groups)
	for i := range names {
		names[i] = "group-" + time.Duration(i).String()
		lag[i] = float64(r.IntN(5000))
	}
	samples := make([]Sample, 0, 2*groups)
	end := c.t.Add(span)
	for ; c.t.Before(end); c.t = c.t.Add(10 * time.Second) {
		samples = samples[:0]
		for i, n := range names {
			kind := i % 10
			if noisy {
				kind = 5
			}
			switch {
			case kind < 5:
				samples = append(samples, Sample{GroupLag(n), float64(r.IntN(20))}, Sample{GroupRate(n), 50 + r.Float64()*4 - 2})
			case kind < 8:
				lag[i] = max(0, lag[i]+float64(r.IntN(600)-300))
				samples = append(samples, Sample{GroupLag(n), lag[i]}, Sample{GroupRate(n), 1000 + r.Float64()*100 - 50})
			case kind == 8:
				lag[i] += 120
				samples = append(samples, Sample{GroupLag(n), lag[i]}, Sample{GroupRate(n), 0})
			default:
				samples = append(samples, Sample{GroupLag(n), lag[i]})
			}
		}
		if err := st.Record(c.t, samples); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkFill2000Groups24h fills a history with 2,000 groups' lag and
// commit rate over 24 h, a poll every 10 s, and reports the file's size
// (the goal: at most 30 MB). Run it once: -bench Fill -benchtime 1x.
func BenchmarkFill2000Groups24h(b *testing.B) {
	for _, noisy := range []bool{false, true} {
		name := "mixed"
		if noisy {
			name = "all-busy"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				path := filepath.Join(b.TempDir(), "h.db")
				c := &clock{time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)}
				st, _, err := Open(path, Options{Now: c.now, noSync: true})
				if err != nil {
					b.Fatal(err)
				}
				fill(b, st, c, 2000, 24*time.Hour, noisy)
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
				size, _ := (&Store{path: path}).Size()
				b.ReportMetric(float64(size)/1e6, "MB")
			}
		})
	}
}
