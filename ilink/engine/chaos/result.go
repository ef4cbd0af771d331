package chaos

// Result is what one seed found. Lost, Duplicated, Reordered, Misacked and
// BackwardsCommits are anomalies (Clean is false when one is not 0); the
// rest describe the run.
type Result struct {
	Seed int64 `json:"seed"`

	Sent     int `json:"sent"`     // records handed to the producers
	Acked    int `json:"acked"`    // acknowledged (acks=all)
	Unacked  int `json:"unacked"`  // failed or unanswered: outcome unknown, may or may not be in the log
	Read     int `json:"read"`     // records in the log, read back at the end
	Consumed int `json:"consumed"` // distinct records the group delivered

	Lost             int `json:"lost"`              // acknowledged, not in the log
	Duplicated       int `json:"duplicated"`        // extra copies of one producer sequence in the log
	Reordered        int `json:"reordered"`         // a producer's records of one key out of send order in a partition
	Misacked         int `json:"misacked"`          // acknowledged at an offset that holds another record
	BackwardsCommits int `json:"backwards_commits"` // a group commit seen lower than before

	ReReads            int `json:"re_reads"`               // deliveries of a record already delivered
	MaxReReadsPerFault int `json:"max_re_reads_per_fault"` // the most charged to one fault
	Unconsumed         int `json:"unconsumed"`             // acknowledged records the group never delivered

	Faults      map[string]int      `json:"faults"` // applied, by kind
	Skipped     int                 `json:"skipped_faults"`
	Recovery    map[string]Recovery `json:"recovery"`
	Unrecovered int                 `json:"unrecovered"` // faults after which some partition never recovered

	ProduceRecoveryMaxMs int64 `json:"produce_recovery_max_ms"`
	FetchRecoveryMaxMs   int64 `json:"fetch_recovery_max_ms"`

	Partitions         int   `json:"partitions"` // at the end
	ProducerIDResets   int64 `json:"producer_id_resets"`
	PossibleDuplicates int64 `json:"possible_duplicates"` // as the producers counted them
	Retries            int64 `json:"producer_retries"`

	// FaultLog is every fault in order with its recovery (-1: none).
	FaultLog []FaultEntry `json:"fault_log"`
	// IsolatedRecovery is Recovery over the faults that did not overlap
	// another one (none injected before this one recovered, and the one
	// before recovered first): the recovery of the fault alone.
	IsolatedRecovery map[string]Recovery `json:"isolated_recovery"`

	Examples []string `json:"examples,omitempty"` // the first anomalies found
}

// FaultEntry is one fault of FaultLog.
type FaultEntry struct {
	Kind      string `json:"kind"`
	Detail    string `json:"detail,omitempty"`
	AtMs      int64  `json:"at_ms"`      // since the first fault's run began
	HealedMs  int64  `json:"healed_ms"`  // windowed faults: when the window ended; else = at_ms
	ProduceMs int64  `json:"produce_ms"` // recovery from healed_ms
	FetchMs   int64  `json:"fetch_ms"`
	ReReads   int    `json:"re_reads"`
	// Uncommitted (crash-member) is what the member had been handed above
	// the group's durable commits when it crashed: the most the group may
	// read again because of it.
	Uncommitted int  `json:"uncommitted,omitempty"`
	Overlapped  bool `json:"overlapped"`
}

// Recovery is the recovery time after the faults of one kind: from the
// fault (or the end of a windowed one) until every partition had a record
// acknowledged (produce) and delivered to the group (fetch) that was sent
// after it. -1: none recovered.
type Recovery struct {
	Count        int   `json:"count"`
	ProduceMaxMs int64 `json:"produce_max_ms"`
	ProduceP50Ms int64 `json:"produce_p50_ms"`
	FetchMaxMs   int64 `json:"fetch_max_ms"`
	FetchP50Ms   int64 `json:"fetch_p50_ms"`
	Unrecovered  int   `json:"unrecovered"`
	MaxReReads   int   `json:"max_re_reads"`
}

// Clean reports whether the run found no anomaly.
func (r *Result) Clean() bool {
	return r.Lost == 0 && r.Duplicated == 0 && r.Reordered == 0 && r.Misacked == 0 && r.BackwardsCommits == 0
}
