package admin

import (
	"context"
	"strings"
	"testing"

	"ilinkdash/ilink"
)

// An admin service never sends a HELLO string the engine would refuse: a
// ClientName over 256 bytes is a configuration error before anything is
// dialled (the address has no listener: a dial would fail otherwise).
func TestConnectRefusesLongClientName(t *testing.T) {
	t.Parallel()
	_, err := Connect(context.Background(), "127.0.0.1:1", Options{ClientName: strings.Repeat("a", 300)})
	want := "MIMQE_BAD_CONFIG (ClientName is 300 bytes; at most 256, the bound of a HELLO string)"
	if !ilink.IsConfigError(err) || err.Error() != want {
		t.Fatalf("Connect: %v, want %s", err, want)
	}
}
