package wire

// The message types of the package, their Encode and Decode methods and
// the request codes with their names are generated: messages_gen.go from
// messages.def, by wiregen, which also writes the layout table of
// docs/PROTOCOL.md §12 and its request-code tables (§5, §8, §10, §11.2).
// TestGeneratedFresh fails when either file is stale.
//go:generate go run ./internal/wiregen -def messages.def -out messages_gen.go -doc ../../docs/PROTOCOL.md
