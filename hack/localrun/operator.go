package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// operatorStopGrace is how long the operator gets after SIGTERM; its own shutdown timeout is 30s.
const operatorStopGrace = 35 * time.Second

// operatorProcess is the operator, run as a child whose log goes to this terminal.
type operatorProcess struct {
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error // valid once done is closed
}

func startOperator(binary string, args []string) (*operatorProcess, error) {
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	// Its own process group keeps Ctrl-C away from it, so it is stopped in order; the parent-death
	// signal ends it if this process is killed outright. That signal follows the starting thread,
	// which the main goroutine keeps (see main's init).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the operator: %w", err)
	}
	p := &operatorProcess{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// stop sends SIGTERM and waits, killing the operator if it takes longer than operatorStopGrace.
func (p *operatorProcess) stop() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(operatorStopGrace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("the operator did not stop within %s of SIGTERM; killed", operatorStopGrace)
	}
}
