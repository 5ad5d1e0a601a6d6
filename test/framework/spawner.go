package framework

import (
	"os/exec"
	"runtime"
	"sync"
)

// Components are started with a parent-death signal, which Linux ties to the thread that started
// them, not to the process. Go may end a thread when a goroutine locked to it returns, so every
// component is started from one goroutine that holds its thread for the life of the program.
var (
	spawnOnce     sync.Once
	spawnRequests chan spawnRequest
)

type spawnRequest struct {
	cmd    *exec.Cmd
	result chan error
}

func startOnSpawnerThread(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnRequests = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked, and this goroutine never returns
			for req := range spawnRequests {
				req.result <- req.cmd.Start()
			}
		}()
	})
	result := make(chan error, 1)
	spawnRequests <- spawnRequest{cmd: cmd, result: result}
	return <-result
}
