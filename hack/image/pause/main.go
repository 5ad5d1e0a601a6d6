// Command pause is the sandbox ("pause") container of the test node's Pods: it holds the Pod's
// namespaces open, reaps the children it inherits, and exits on SIGTERM or SIGINT.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			return
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
