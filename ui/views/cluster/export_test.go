package cluster

// RebalanceDifferences is rebalanceDifferences, for the tests.
var RebalanceDifferences = rebalanceDifferences
