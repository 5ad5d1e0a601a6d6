package framework

import "syscall"

// componentProcAttr puts a component in its own process group and has the kernel kill it if the
// process that started it dies, so a crashed test leaves nothing running (see spawner.go).
func componentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
