package wire

// The message types of the package and their Encode and Decode methods
// are generated: messages_gen.go from messages.def, by wiregen.
// TestGeneratedFresh fails when it is stale.
//go:generate go run ./internal/wiregen -def messages.def -out messages_gen.go
