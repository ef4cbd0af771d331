package wire

import "testing"

func TestMurmur2MatchesKafka(t *testing.T) {
	// Vectors from Kafka's UtilsTest and the spec.
	cases := map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"abc":                        479470107,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
	}
	for k, want := range cases {
		if got := Murmur2([]byte(k)); got != want { // spec: P-17
			t.Errorf("murmur2(%q) = %d, want %d", k, got, want)
		}
	}
}

// TestCoordinatorHashWorkedExample pins the example of docs/PROTOCOL.md
// §10: the group name's UTF-8 bytes, Kafka's murmur2, the sign bit
// masked off (not the absolute value), modulo the partition count of
// SYSTEM.GROUPS.
func TestCoordinatorHashWorkedExample(t *testing.T) {
	h := Murmur2([]byte("billing"))
	if h != -1672664447 || uint32(h) != 0x9c4d2a81 {
		t.Fatalf("murmur2(billing) = %d (0x%08x)", h, uint32(h))
	}
	if pos := uint32(h) & 0x7fffffff; pos != 474819201 || pos%3 != 0 {
		t.Fatalf("toPositive = %d", pos)
	}
	if abs := -int64(h); abs%3 != 2 {
		t.Fatalf("|murmur2| %% 3 = %d (the example shows the mask matters)", abs%3)
	}
	if p := KeyPartition([]byte("billing"), 3); p != 0 {
		t.Fatalf("KeyPartition(billing, 3) = %d, want 0", p)
	}
}
