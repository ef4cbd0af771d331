package engine

import (
	"ilinkdash/ilink/wire"
)

// Admin requests (docs/PROTOCOL.md "Admin"): accepted on admin sessions
// only (HELLO mode 4, admin listener). The group admin codes 1310–1314 are
// the group coordinator's (groups*.go) and PUBLISH 1204 is the topic
// side's (publish.go).
var adminModes = []wire.SessionMode{wire.ModeAdmin}

func init() {
	for code, fn := range map[wire.Code]handlerFunc{
		wire.CodeQmgrList:      handleQmgrList,
		wire.CodeNodeList:      handleNodeList,
		wire.CodeNodeControl:   handleNodeControl,
		wire.CodeForceElection: handleForceElection,
		wire.CodeRebalance:     handleRebalance,

		wire.CodeTopicList:        handleTopicList,
		wire.CodeDescribeTopic:    handleDescribeTopic,
		wire.CodeAdminCreateTopic: handleAdminCreateTopic,
		wire.CodeDeleteTopic:      handleDeleteTopic,
		wire.CodeFlushTopic:       handleFlushTopic,
		wire.CodeAlterTopic:       handleAlterTopic,

		wire.CodeQueueList:     handleQueueList,
		wire.CodeQueueProperty: handleQueueProperty,
		wire.CodeReloadQueue:   handleReloadQueue,
		wire.CodeDefineQueue:   handleDefineQueue,
		wire.CodeDeleteQueue:   handleDeleteQueue,
		wire.CodeBrowseQueue:   handleBrowseQueue,
		wire.CodeMoveMessages:  handleMoveMessages,

		wire.CodeClusterProperty:    handleClusterProperty,
		wire.CodeSetClusterProperty: handleSetClusterProperty,
		wire.CodeAddNode:            handleAddNode,
		wire.CodeRemoveNode:         handleRemoveNode,
		wire.CodeCreateCluster:      handleCreateCluster,
		wire.CodeJoinCluster:        handleJoinCluster,
		wire.CodeDiagCluster:        handleDiagCluster,
		wire.CodeViewClusterLeaders: handleViewClusterLeaders,

		wire.CodeQmgrProperty:    handleQmgrProperty,
		wire.CodeSetQmgrProperty: handleSetQmgrProperty,

		wire.CodeReplicationStatus: handleReplicationStatus,
		wire.CodeStatSeries:        handleStatSeries,
		wire.CodeViewLoad:          handleViewLoad,

		wire.CodeShutdown: handleShutdown,
		wire.CodePatch:    handlePatch,

		wire.CodeViewQuarantine: handleViewQuarantine,
		wire.CodeScanQuarantine: handleScanQuarantine,
		wire.CodeReinject:       handleReinject,

		wire.CodeSpokeList:   handleSpokeList,
		wire.CodeSpokeSwitch: handleSpokeSwitch,

		wire.CodeSpokeSwitchNode: handleSpokeSwitchNode,
	} {
		register(code, route{fn: fn, modes: adminModes})
	}
}

// qmgrRunning checks a per-queue-manager request's target: the queue
// manager must be hosted here (MIMQE_UNKNOWN_QMGR) and running on this node
// (MIMQE_QMGR_NOT_RUNNING (<qmgr>), spec A-21). An empty name means the
// service's queue manager. It answers the request and returns false when
// the check fails.
func (r *request) qmgrRunning(qmgr string) bool {
	e := r.c.e
	if qmgr != "" && qmgr != e.cfg.QueueManager {
		r.fail(&wire.ErrorBody{Name: wire.ErrUnknownQmgr, Tail: qmgr})
		return false
	}
	if !e.cl.memberOf(r.c.nodeID()).running {
		r.fail(&wire.ErrorBody{Name: wire.ErrQmgrNotRunning, Tail: e.cfg.QueueManager})
		return false
	}
	return true
}

// memberOf returns node id's membership state.
func (c *cluster) memberOf(id int) member {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id < 1 || id > len(c.members) {
		return member{}
	}
	return c.members[id-1]
}

func handleQmgrList(r *request) {
	if !r.decode(&wire.Empty{}) {
		return
	}
	e := r.c.e
	r.reply(&wire.QmgrListReply{Qmgrs: []wire.QmgrEntry{{
		Name:      e.cfg.QueueManager,
		Running:   e.cl.memberOf(r.c.nodeID()).running,
		DataAddr:  r.c.ep.node.data.addr,
		Clustered: len(e.nodes) > 1,
		Cluster:   e.cfg.Cluster,
	}}})
}
