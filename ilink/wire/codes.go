package wire

import "fmt"

// Code identifies a request; responses echo it.
type Code uint16

// The request codes (constants of type Code) and their names, codeNames,
// are generated from the codes blocks of messages.def (messages_gen.go).

// String is the code's name and number, "QMGR LIST(2000)", for logs and
// errors; a code without a name is "code(N)".
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return fmt.Sprintf("%s(%d)", n, uint16(c))
	}
	return fmt.Sprintf("code(%d)", uint16(c))
}
