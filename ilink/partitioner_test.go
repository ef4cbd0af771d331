package ilink

import "testing"

func TestKeyPartitionTable(t *testing.T) {
	t.Parallel()
	// Fixed key table: partition = toPositive(murmur2(key)) % n, as Kafka.
	if p := KeyPartition([]byte("order-1"), 3); p != 1 { // spec: P-17
		t.Fatalf("order-1 on 3 partitions -> %d, want 1", p)
	}
	table := []struct {
		key  string
		n    int
		want int
	}{
		{"21", 6, positiveMod(-973932308, 6)},
		{"foobar", 4, positiveMod(-790332482, 4)},
		{"abc", 5, 479470107 % 5},
	}
	for _, c := range table {
		if got := KeyPartition([]byte(c.key), c.n); got != c.want { // spec: P-17
			t.Errorf("%q on %d -> %d, want %d", c.key, c.n, got, c.want)
		}
		for i := 0; i < 3; i++ {
			if KeyPartition([]byte(c.key), c.n) != c.want { // spec: P-18
				t.Fatal("same key moved partition")
			}
		}
	}
}

func TestStickyPartitionerMovesAfterBatchSize(t *testing.T) {
	t.Parallel()
	s := stickyPartitioner{batchSize: 1000}
	first := s.next(100, 4, func(int) int { return 2 })
	if first != 2 {
		t.Fatalf("first partition %d", first)
	}
	for i := 1; i < 10; i++ { // 10 records of 100 bytes fill 1000 bytes
		if p := s.next(100, 4, nil); p != 2 { // spec: P-19
			t.Fatalf("record %d moved to %d before batchSize", i, p)
		}
	}
	if p := s.next(100, 4, nil); p != 3 { // spec: P-19
		t.Fatalf("after batchSize bytes went to %d, want 3", p)
	}
}

func positiveMod(h int32, n int) int { return int(uint32(h)&0x7fffffff) % n }
