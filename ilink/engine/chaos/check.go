package chaos

// check reads the log back and judges the history.
func (r *runner) check() (*Result, error) {
	logs, err := r.readBack()
	if err != nil {
		return nil, err
	}
	h := r.h
	res := &Result{Seed: r.cfg.Seed, Partitions: len(logs)}
	res.Recovery, res.Unrecovered = h.recoveryStats(false)
	res.IsolatedRecovery, _ = h.recoveryStats(true)
	res.FaultLog = h.faultLog(r.t0)
	res.ProduceRecoveryMaxMs, res.FetchRecoveryMaxMs = -1, -1
	for _, rc := range res.Recovery {
		res.ProduceRecoveryMaxMs = max(res.ProduceRecoveryMaxMs, rc.ProduceMaxMs)
		res.FetchRecoveryMaxMs = max(res.FetchRecoveryMaxMs, rc.FetchMaxMs)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	res.ReReads = h.reReads

	type pn struct{ p, n int }
	copies := map[pn]int{}
	at := map[tp]pn{} // what each offset holds
	for part, recs := range logs {
		// Per (producer, key): the last counter seen along the offsets.
		last := map[string]int{}
		for _, rec := range recs {
			p, n, _, ok := parseValue(rec.value)
			if !ok || p < 0 || p >= len(h.sends) {
				h.example("partition %d offset %d: a record the checker did not write (%q)", part, rec.off, rec.value)
				continue
			}
			res.Read++
			k := pn{p, n}
			copies[k]++
			if copies[k] == 2 {
				h.example("producer %d record %d is twice in the log (again at partition %d offset %d)", p, n, part, rec.off)
			}
			at[tp{int32(part), rec.off}] = k
			lk := rec.key
			if prev, seen := last[lk]; seen && n < prev {
				res.Reordered++
				h.example("partition %d offset %d: key %s record %d after record %d", part, rec.off, lk, n, prev)
			}
			last[lk] = max(last[lk], n)
		}
	}
	for _, c := range copies {
		if c > 1 {
			res.Duplicated += c - 1
		}
	}
	for p, ss := range h.sends {
		for n, s := range ss {
			res.Sent++
			switch s.state {
			case acked:
				res.Acked++
				k := pn{p, n}
				if copies[k] == 0 {
					res.Lost++
					h.example("producer %d record %d acknowledged at partition %d offset %d, not in the log", p, n, s.part, s.off)
					continue
				}
				if got, ok := at[tp{s.part, s.off}]; !ok || got != k {
					res.Misacked++
					h.example("producer %d record %d acknowledged at partition %d offset %d, which holds %v", p, n, s.part, s.off, got)
				}
				if h.deliv[tp{s.part, s.off}] == 0 {
					res.Unconsumed++
				}
			default:
				res.Unacked++
			}
		}
	}
	for k, n := range h.deliv {
		if n > 0 {
			if _, ok := at[k]; ok {
				res.Consumed++
			}
		}
	}
	for _, f := range h.faults {
		res.MaxReReadsPerFault = max(res.MaxReReadsPerFault, f.reReads)
	}
	res.Examples = append(res.Examples, h.examples...)
	return res, nil
}
