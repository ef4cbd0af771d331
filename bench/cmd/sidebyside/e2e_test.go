package main

import (
	"testing"
	"time"

	"ilinkdash/ilink"
)

func TestIlinkLingerMapping(t *testing.T) {
	if got := ilinkLingerMs(0); got != ilink.NoLinger {
		t.Errorf("--linger 0 -> LingerMs %d, want NoLinger (%d); LingerMs 0 is the 5 ms default", got, ilink.NoLinger)
	}
	if got := ilinkLingerMs(5 * time.Millisecond); got != 5 {
		t.Errorf("--linger 5ms -> %d", got)
	}
}

func TestParseLingers(t *testing.T) {
	ls, err := parseLingers("0, 5ms")
	if err != nil || len(ls) != 2 || ls[0] != 0 || ls[1] != 5*time.Millisecond {
		t.Fatalf("parseLingers: %v %v", ls, err)
	}
	if _, err := parseLingers("-1ms"); err == nil {
		t.Fatal("negative linger accepted")
	}
}
