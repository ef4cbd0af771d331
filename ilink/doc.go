// Package ilink is a pure-Go client for the iLink message middleware.
//
// A Session (Dial) is a queue session on the cluster leader: it follows
// leader hints, caches the cluster's node list (optionally in an endpoint
// cache file) and retries a put or get once after an internal failover
// reconnect when no transaction is open, as ilink-spec §3.3 prescribes.
// Queue handles (AccessQueue) put and get messages.
//
// Every error is an *Error whose Kind tells what to do: KindRejected (the
// engine said no; retrying is pointless), KindSession (communication
// failed; reconnect), KindNoMessage (nothing within the wait) and
// KindConfig (invalid options). Use IsRejected, IsSessionError,
// IsNoMessage, IsConfigError or AsError.
//
// Conn is the pipelined connection under every client of the package
// family (sessions, producers, consumers, admin): many requests in flight,
// replies matched in order, one reader goroutine, coalesced writes.
package ilink
