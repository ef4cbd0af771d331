package tab

import "testing"

func TestFetchOwesTheReadAskedMeanwhile(t *testing.T) {
	var f Fetch
	if !f.Start() || !f.Pending() {
		t.Fatal("the first read did not start")
	}
	if f.Start() {
		t.Fatal("a second read started while one was in flight")
	}
	if f.Start() {
		t.Fatal("a third read started while one was in flight")
	}
	if !f.Done() || f.Pending() {
		t.Fatal("the read asked meanwhile is not owed after the answer")
	}
	if !f.Start() || f.Done() {
		t.Fatal("a read with nothing asked meanwhile owes another")
	}
}
