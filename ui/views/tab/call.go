package tab

import (
	"context"
	"time"
)

// CallTimeout bounds every call a tab makes itself.
const CallTimeout = 15 * time.Second

// CallCtx is the context of a call a tab makes itself (in a command).
func CallCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), CallTimeout)
}
