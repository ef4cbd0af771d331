package queues_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/viewtest"
)

// putFake puts n bodies "<prefix>-NNNN" on AUDIT.ARCHIVE of the rig's fake.
func putFake(t *testing.T, r *viewtest.Rig, prefix string, n int, headers []wire.RecordHeader) {
	t.Helper()
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = []byte(fmt.Sprintf("%s-%04d", prefix, i))
	}
	if _, err := r.Src.PutMessages(context.Background(), "AUDIT.ARCHIVE", bodies, headers); err != nil {
		t.Fatal(err)
	}
}

// keyUntil presses key until the screen shows want (at most max times).
func keyUntil(t *testing.T, r *viewtest.Rig, key, want string, max int) {
	t.Helper()
	for i := 0; i < max && !strings.Contains(r.Screen(), want); i++ {
		r.Key(key)
	}
	r.MustShow(want)
}

// Issue 23: the browse pages through every message of a queue, in a
// bounded window, saying where it is; G reads the last page, g the first.
func TestQueueDetailPagesThroughEveryMessage(t *testing.T) {
	r := viewtest.New(t, false, queuesView)
	putFake(t, r, "bulk", 1170, nil) // 30 seeded + 1,170 = 1,200: six pages
	r.Poll()
	r.Key("enter") // AUDIT.ARCHIVE
	r.MustShow("Queue AUDIT.ARCHIVE", "browsing 1–200 of 1,200, without taking them", "pages load as you scroll")
	r.Key("G")
	r.MustShow("browsing 1,001–1,200 of 1,200", "bulk-1169")
	r.Key("g")
	r.MustShow("browsing 1–200 of 1,200", "audit record 0")
	// Scrolling down reads the next pages as the cursor nears the end.
	keyUntil(t, r, "pgdown", "browsing 1–400 of 1,200", 40)
	// The window holds at most 5 pages (1,000 messages): past them, the
	// first pages are dropped.
	keyUntil(t, r, "pgdown", "browsing 201–1,200 of 1,200", 200)
	// The drop keeps the cursor on its message; the rest of the way down
	// reads nothing more, as the window already ends at the last message.
	for range 60 {
		r.Key("pgdown")
	}
	r.MustShow("browsing 201–1,200 of 1,200", "bulk-1169")
	if st := r.V.Status(); !strings.Contains(st, "1000/1000") {
		t.Fatalf("status %q: want the cursor on the last of 1,000 rows", st)
	}
	// Going back up reads the dropped page again.
	keyUntil(t, r, "pgup", "browsing 1–1,000 of 1,200", 200)
	// The message just put is on the last page.
	putFake(t, r, "fresh", 1, nil)
	r.Poll()
	r.Key("G")
	r.MustShow("browsing 1,002–1,201 of 1,201", "fresh-0000")
}

// Issue 23: / searches bodies and headers through every page, its matches
// as their own list with a count; esc stops, a second esc goes back.
func TestQueueDetailSearchesEveryPage(t *testing.T) {
	r := viewtest.New(t, false, queuesView)
	putFake(t, r, "bulk", 420, nil)
	putFake(t, r, "traced", 3, []wire.RecordHeader{{Key: "trace", Value: []byte("Needle-77")}})
	putFake(t, r, "tail", 10, nil)
	r.Poll()
	r.Key("enter")
	r.MustShow("browsing 1–200 of 463")
	r.MustNotShow("traced-0000")
	r.Key("/")
	r.MustShow("Search AUDIT.ARCHIVE", "Find")
	r.Key("enter") // the dialog opens navigating: enter edits
	r.TypeText("needle-77")
	r.Key("enter")
	r.MustShow(`Search "needle-77"`, "3 matches in 463 of 463 messages", "esc back to the browse", "traced-0000", "traced-0002", "trace: Needle-77")
	r.MustNotShow("bulk-0000")
	if n := r.Src.Calls("BrowseQueue"); n < 2 {
		t.Fatalf("the search read %d pages", n)
	}
	r.Key("esc")
	r.MustShow("browsing 1–200 of 463", "audit record 0")
	r.MustNotShow(`Search "needle-77"`)
	// An empty search is refused in the dialog.
	r.Key("/", "enter", "enter")
	r.MustShow("search: type the text to find")
}

// Issue 23: Put takes headers ("k=v, k2=v2"); a bad one is refused naming
// the field; the browse shows them; c copies the id, headers or body.
func TestQueuePutHeadersAndCopy(t *testing.T) {
	r := viewtest.Polled(t, false, queuesView)
	r.Key("enter") // AUDIT.ARCHIVE, 30 messages
	r.Key("P", "enter")
	r.TypeText("hello")
	r.Key("tab", "tab")
	r.TypeText("novalue")
	r.Key("enter")
	r.MustShow(`headers: "novalue" is not key=value`)
	if n := r.Src.Calls("PutMessages"); n != 0 {
		t.Fatalf("a refused put was sent (%d calls)", n)
	}
	for range len("novalue") {
		r.Key("backspace")
	}
	r.TypeText("origin=web, trace=t\\,1")
	r.Key("enter")
	r.MustShow("browsing 31 of 31")
	put := false
	for _, f := range viewtest.Took[common.FlashMsg](r) {
		put = put || strings.Contains(f.Text, "1 message put on AUDIT.ARCHIVE")
	}
	if !put {
		t.Fatal(`no flash "1 message put on AUDIT.ARCHIVE"`)
	}
	r.Out = nil
	b, err := r.Src.BrowseQueueAt(context.Background(), "AUDIT.ARCHIVE", admin.BrowseAt{Before: admin.BrowseLast, Max: 1})
	if err != nil || len(b.Messages) != 1 {
		t.Fatalf("browse: %v %+v", err, b)
	}
	m := b.Messages[0]
	if m.Header("origin") != "web" || m.Header("trace") != "t,1" || string(m.Payload) != "hello" {
		t.Fatalf("put message %q headers %+v", m.Payload, m.Headers)
	}
	r.Key("G")
	r.MustShow("origin: web", "trace: t,1", "hello")
	copied := func(want string) {
		t.Helper()
		msg := tea.SetClipboard(want)()
		for _, o := range r.Out {
			if o == msg {
				r.Out = nil
				return
			}
		}
		t.Fatalf("no OSC 52 copy of %q among %#v", want, r.Out)
	}
	r.Key("c")
	r.MustShow("Copy from message", "‹ id (hex)")
	r.Key("enter")
	copied(hex.EncodeToString(m.ID))
	r.Key("c", "right", "enter")
	copied("origin: web\ntrace: t,1\n")
	r.Key("c", "right", "right", "enter")
	copied("hello")
}

// Issue 23: a quarantined entry opens (enter) to show its headers and
// body before anything is reinjected.
func TestQuarantineEntryOpensBeforeReinject(t *testing.T) {
	r := viewtest.Polled(t, false, queuesView)
	r.Key("Q")
	r.MustShow("Entries of qdir1 / ORDERS.IN", "enter: the entries")
	r.Key("enter") // to the entries pane
	r.MustShow("enter opens the entry")
	r.Key("enter")
	r.MustShow("Quarantined entry", "qdir1 / ORDERS.IN", "NEW", "origin: web", `{"order":"order-004093","amount":1200000}`)
	if r.Src.Calls("ReinjectQuarantine") != 0 {
		t.Fatal("opening an entry reinjected it")
	}
	r.Key("enter") // close
	r.Key("down", "enter")
	r.MustShow("OLD (already delivered", "no header", "order-004094")
	r.Key("enter")
	r.MustNotShow("Quarantined entry")
}

// The search's own list is bounded in bytes as well as in items: large
// matches are counted, only the first within searchKeepBytes listed.
func TestQueueSearchKeepsItsMatchesWithinBytes(t *testing.T) {
	r := viewtest.New(t, false, queuesView)
	body := append([]byte("needle "), make([]byte, 1_000_000)...)
	bodies := make([][]byte, 6)
	for i := range bodies {
		bodies[i] = body
	}
	if _, err := r.Src.PutMessages(context.Background(), "AUDIT.ARCHIVE", bodies, nil); err != nil {
		t.Fatal(err)
	}
	r.Poll()
	r.Key("enter", "/", "enter")
	r.TypeText("needle")
	r.Key("enter")
	r.MustShow("6 matches in", "(the first 4 listed)")
}
