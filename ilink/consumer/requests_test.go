package consumer

import "ilinkdash/ilink/wire"

// The request hooks both test clusters take (testEngine.hook through
// engine.Control, fakeCluster.hook): a test written against one reads
// the same against the other.

// reqEvent is what a hook sees of a request.
type reqEvent struct {
	Node   uint16
	Code   wire.Code
	Body   []byte
	Member string // for group requests
}

// reqAction answers a request with an error instead of handling it;
// nil = handle normally.
type reqAction struct {
	Report uint16
	Name   string
	Tail   string
}

type reqHook func(ev *reqEvent) *reqAction

// memberOf is the member id a group request names ("" for a first JOIN).
func memberOf(code wire.Code, body []byte) string {
	switch code {
	case wire.CodeJoinGroup:
		var m wire.JoinGroupRequest
		if wire.Decode(body, &m) == nil {
			return m.MemberID
		}
	case wire.CodeHeartbeat, wire.CodeLeaveGroup:
		var m wire.MemberRequest
		if wire.Decode(body, &m) == nil {
			return m.MemberID
		}
	case wire.CodeOffsetCommit:
		var m wire.OffsetCommitRequest
		if wire.Decode(body, &m) == nil {
			return m.MemberID
		}
	}
	return ""
}
