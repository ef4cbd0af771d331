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
