//go:build !linux

package smb

import "net"

// hungUp is false where the kernel's TCP state is not read: a conflict
// with a connection whose client has hung up is answered at once.
func hungUp(net.Conn) bool { return false }

// unreadInput is false where the kernel's receive queue is not read: a
// change does not wait for frames other connections have not read.
func unreadInput(net.Conn) bool { return false }
