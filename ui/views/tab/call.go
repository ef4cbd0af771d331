package tab

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// CallTimeout bounds every call a tab makes itself.
const CallTimeout = 15 * time.Second

// CallCtx is the context of a call a tab makes itself (in a command).
func CallCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), CallTimeout)
}

// Call runs fn in a command with a call's timeout (CallCtx) and brings
// its result back to this tab, tagged with the Gen of now: the shape of
// every call a tab makes itself.
func (b *Base) Call(fn func(ctx context.Context) any) tea.Cmd {
	gen := b.Gen
	return b.Address(gen, func() any {
		ctx, cancel := CallCtx()
		defer cancel()
		return fn(ctx)
	})
}
