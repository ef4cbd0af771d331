package queues

import (
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// ids builds client-style message ids: 8 prefix bytes, then a counter.
func clientIDs(prefix string, from, n int) [][]byte {
	var out [][]byte
	for i := 0; i < n; i++ {
		id := make([]byte, 16)
		copy(id, prefix)
		binary.BigEndian.PutUint64(id[8:], uint64(from+i))
		out = append(out, id)
	}
	return out
}

// Defect 8: ids sharing a long prefix are shown by the part that tells
// them apart, each distinct, and an operator can match the form against
// the full id (its first and last digits).
func TestIDFormTellsApartIDsWithALongSharedPrefix(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  [][]byte
		k    int
	}{
		{"one producer", clientIDs("\x41\xe9\x14\x0a\x28\x34\x1f\x7b", 1, 200), 4},
		{"two producers, the same counters", append(clientIDs("\x41\xe9\x14\x0a\x28\x34\x1f\x7b", 1, 50), clientIDs("\x9c\x02\x14\x0a\x28\x34\x1f\x7b", 1, 50)...), 4},
		{"a counter past 16 bits", clientIDs("\x41\xe9\x14\x0a\x28\x34\x1f\x7b", 65530, 12), 4},
		{"alike at both ends but for the 5th digit", [][]byte{
			{0x41, 0xe9, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
			{0x41, 0xe9, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		}, 5},
	} {
		f := newIDForm(tc.ids)
		if f.k != tc.k {
			t.Errorf("%s: %d digits each end, want %d", tc.name, f.k, tc.k)
		}
		seen := map[string]string{}
		for _, id := range tc.ids {
			full := hex.EncodeToString(id)
			s := f.of(id)
			if prev, dup := seen[s]; dup && prev != full {
				t.Fatalf("%s: %s and %s both shown as %s", tc.name, prev, full, s)
			}
			seen[s] = full
			if want := full[:f.k] + "…" + full[len(full)-f.k:]; s != want {
				t.Fatalf("%s: %s shown as %s, want %s", tc.name, full, s, want)
			}
		}
	}
	// Ids alike in their first and last 6 digits are shown in full.
	a := []byte{1, 2, 3, 0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 6}
	b := []byte{1, 2, 3, 0xb0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 6}
	if f := newIDForm([][]byte{a, b}); f.of(a) != hex.EncodeToString(a) || f.of(a) == f.of(b) {
		t.Fatalf("ids alike at both ends: %s and %s", f.of(a), f.of(b))
	}
}
