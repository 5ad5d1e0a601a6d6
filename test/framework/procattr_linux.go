package framework

import "syscall"

// componentProcAttr puts a component in its own process group and has the kernel kill it if the
// process that started it dies, so a crashed test leaves nothing running.
func componentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
