package wire

import "fmt"

// Code identifies a request; responses echo it.
type Code uint16

// Documented iLink request codes (ilink-spec §3.1). Spec: W-11.
const (
	CodeShutdown           Code = 3002
	CodeViewLoad           Code = 3204
	CodeReloadQueue        Code = 3315
	CodePatch              Code = 3335
	CodeDiagCluster        Code = 3395
	CodeTopicLeave         Code = 3401 // MIMQ_TOPIC_LEAVE
	CodeViewClusterLeaders Code = 3423
	CodeViewQuarantine     Code = 3425
	CodeScanQuarantine     Code = 3426
	CodeReinject           Code = 3427
)

// Our request codes (docs/PROTOCOL.md §5). Ranges: 1000 session, 1100 queues,
// 1200 topics, 1300 groups, 2000 admin.
const (
	CodeHello Code = 1000
	CodePing  Code = 1001

	CodeOpenQueue  Code = 1100
	CodePut        Code = 1101
	CodeGet        Code = 1102
	CodeCommit     Code = 1103
	CodeRollback   Code = 1104
	CodeQueueDepth Code = 1105
)

var codeNames = map[Code]string{
	CodeShutdown: "SHUTDOWN", CodeViewLoad: "VIEW LOAD", CodeReloadQueue: "RELOAD QUEUE",
	CodePatch: "PATCH", CodeDiagCluster: "DIAG CLUSTER", CodeTopicLeave: "MIMQ_TOPIC_LEAVE",
	CodeViewClusterLeaders: "VIEW CLUSTER LEADERS", CodeViewQuarantine: "VIEW QUARANTINE",
	CodeScanQuarantine: "SCAN QUARANTINE", CodeReinject: "REINJECT",
	CodeHello: "HELLO", CodePing: "PING",
	CodeOpenQueue: "OPEN QUEUE", CodePut: "PUT", CodeGet: "GET", CodeCommit: "COMMIT",
	CodeRollback: "ROLLBACK", CodeQueueDepth: "QUEUE DEPTH",
}

// RegisterCodeName names a code for logs and errors; packages that add
// request codes call it from init.
func RegisterCodeName(c Code, name string) { codeNames[c] = name }

func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return fmt.Sprintf("%s(%d)", n, uint16(c))
	}
	return fmt.Sprintf("code(%d)", uint16(c))
}
