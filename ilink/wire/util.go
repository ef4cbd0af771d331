package wire

import "fmt"

func errBadMsgID(n int) error { return fmt.Errorf("message id of %d bytes (want %d)", n, MsgIDLen) }
