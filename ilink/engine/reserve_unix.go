//go:build unix

package engine

import (
	"net/netip"
	"syscall"
)

// reservePort binds a TCP socket to addr without listening on it, and
// returns how to release it. While a node is down its ports stay its
// own: a dial to them is refused, as to a dead node, and the kernel gives
// them to no other socket (an outgoing connection's ephemeral end, which
// a released port could otherwise become, even the end of a client
// redialling that very port). The restarted listener binds beside it
// (both SO_REUSEADDR, neither listening) before it is released.
func reservePort(addr string) (release func(), err error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	family, ip := syscall.AF_INET, ap.Addr().Unmap()
	var sa syscall.Sockaddr
	if ip.Is4() {
		sa = &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ip.As4()}
	} else {
		family = syscall.AF_INET6
		sa = &syscall.SockaddrInet6{Port: int(ap.Port()), Addr: ip.As16()}
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return func() { syscall.Close(fd) }, nil
}
