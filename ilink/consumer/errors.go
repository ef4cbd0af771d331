package consumer

import (
	"fmt"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// configError is a KindConfig error, reported before anything is sent.
func configError(format string, args ...any) *ilink.Error {
	return &ilink.Error{Name: ilink.NameBadConfig, Tail: fmt.Sprintf(format, args...), Kind: ilink.KindConfig}
}

// notAvailableError is the end of the coordinator retry budget (spec C-34).
func notAvailableError(group string) *ilink.Error {
	return &ilink.Error{Name: wire.ErrNotAvailable, Tail: "group coordinator for " + group, Kind: ilink.KindSession}
}

// rebalancedError is how a rebalance (4161) or a generation mismatch
// (4178) reaches the application: only from a manual commit (spec C-31).
func rebalancedError(report uint16, tail string) *ilink.Error {
	return &ilink.Error{Name: wire.ErrTopicRebalanced, Report: report, Tail: tail, Kind: ilink.KindRejected}
}

// noMessageError: nothing arrived within the wait (spec C-50, E-07).
func noMessageError(wait time.Duration) *ilink.Error {
	return &ilink.Error{Name: wire.ErrNoMessage, Tail: "no record within " + wait.String(), Kind: ilink.KindNoMessage}
}

// closedError: the application closed the consumer.
func closedError() *ilink.Error {
	return &ilink.Error{Name: ilink.NameSessionClosed, Tail: "consumer closed by the application", Kind: ilink.KindSession}
}

func notAssignedError(topic string, p int32) *ilink.Error {
	return &ilink.Error{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("partition %d of %s is not assigned to this consumer", p, topic), Kind: ilink.KindRejected}
}

// isCoordinatorRetry tells the errors after which the client looks the
// coordinator up again (spec C-27, C-28, C-33): NOT_COORDINATOR, LOADING,
// and any communication failure with the node it believed coordinator.
func isCoordinatorRetry(err error) bool {
	e := ilink.AsError(err)
	if e == nil {
		return false
	}
	switch {
	case e.Report == wire.ReportNotCoordinator, e.Report == wire.ReportLoading:
		return true
	case e.Name == wire.ErrNotCoordinator, e.Name == wire.ErrLoading,
		e.Name == wire.ErrNotAvailable, e.Name == wire.ErrNoLeader,
		e.Name == wire.ErrQmgrNotRunning:
		return true
	}
	return e.Kind == ilink.KindSession && e.Name != ilink.NameSessionClosed
}

// isRebalanceErr: REPORT 4161, the member must rejoin.
func isRebalanceErr(err error) bool {
	e := ilink.AsError(err)
	return e != nil && (e.Report == wire.ReportRebalanced || e.Name == wire.ErrRebalanceInProgress)
}

// isGenerationErr: REPORT 4178, the member's generation is stale.
func isGenerationErr(err error) bool {
	e := ilink.AsError(err)
	return e != nil && (e.Report == wire.ReportGenerationMismatch || e.Name == wire.ErrGenerationMismatch)
}

// isUnknownMember: the coordinator forgot the member (expired, or a new
// coordinator that rebuilt only commits).
func isUnknownMember(err error) bool {
	e := ilink.AsError(err)
	return e != nil && e.Name == wire.ErrUnknownMember
}

// partError converts a per-partition error of a reply.
func partError(pe wire.PartError) *ilink.Error {
	if pe.Name == "" {
		return nil
	}
	e := &ilink.Error{Name: pe.Name, Tail: pe.Tail, Kind: ilink.KindRejected}
	switch pe.Name {
	case wire.ErrRebalanceInProgress:
		e.Report = wire.ReportRebalanced
	case wire.ErrGenerationMismatch:
		e.Report = wire.ReportGenerationMismatch
	case wire.ErrNotCoordinator:
		e.Report = wire.ReportNotCoordinator
	case wire.ErrLoading:
		e.Report = wire.ReportLoading
	}
	return e
}
