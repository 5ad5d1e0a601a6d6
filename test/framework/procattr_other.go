//go:build unix && !linux

package framework

import "syscall"

// componentProcAttr puts a component in its own process group so Stop reaches all of it.
func componentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
