//go:build !unix

package engine

import "errors"

// reservePort is not done here: a restarted node waits for its port
// instead (rebindWait).
func reservePort(string) (func(), error) {
	return nil, errors.New("engine: no port reservation on this platform")
}
