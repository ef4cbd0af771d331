package wire

// Group request codes (docs/PROTOCOL.md §10). Join, heartbeat, commit and
// offset fetch go to the group's coordinator: the leader of the group's
// SYSTEM.GROUPS partition.
const (
	CodeFindCoordinator Code = 1300
	CodeJoinGroup       Code = 1301
	CodeHeartbeat       Code = 1302
	CodeLeaveGroup      Code = 1303
	CodeOffsetCommit    Code = 1304
	CodeOffsetFetch     Code = 1305
	CodeDeleteGroup     Code = 1306
)

func init() {
	RegisterCodeName(CodeFindCoordinator, "FIND COORDINATOR")
	RegisterCodeName(CodeJoinGroup, "JOIN GROUP")
	RegisterCodeName(CodeHeartbeat, "HEARTBEAT")
	RegisterCodeName(CodeLeaveGroup, "LEAVE GROUP")
	RegisterCodeName(CodeOffsetCommit, "OFFSET COMMIT")
	RegisterCodeName(CodeOffsetFetch, "OFFSET FETCH")
	RegisterCodeName(CodeDeleteGroup, "DELETE GROUP")
}

// GroupsTopic is the internal topic holding group commits.
const GroupsTopic = "SYSTEM.GROUPS"
