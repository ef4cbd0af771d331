package wire

// GroupsTopic is the internal topic holding group commits.
const GroupsTopic = "SYSTEM.GROUPS"
