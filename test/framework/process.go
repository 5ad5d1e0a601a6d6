package framework

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// stopGrace is how long a component gets to exit after SIGTERM before it is killed.
const stopGrace = 10 * time.Second

// process is one running component. Its output goes to a log file; it runs in its own process
// group so that stopping it reaches anything it started.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	logFile *os.File
	grace   time.Duration // between SIGTERM and SIGKILL
	done    chan struct{} // closed when the process has exited
	waitErr error         // valid after done is closed
}

func startProcess(name, binary, logPath string, args []string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = componentProcAttr()
	if err := startOnSpawnerThread(cmd); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, logFile: logFile, grace: stopGrace, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exitError reports why the process is gone, or nil while it still runs.
func (p *process) exitError() error {
	select {
	case <-p.done:
		err := p.waitErr
		if err == nil {
			err = errors.New("exited with status 0")
		}
		return fmt.Errorf("%s exited: %w\n--- last lines of %s ---\n%s", p.name, err, p.logPath, p.logTail(20))
	default:
		return nil
	}
}

// stop sends SIGTERM to the process group, then SIGKILL if it has not exited within its grace.
func (p *process) stop() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	pgid := -p.cmd.Process.Pid
	if err := syscall.Kill(pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop %s: %w", p.name, err)
	}
	timer := time.NewTimer(p.grace)
	defer timer.Stop()
	select {
	case <-p.done:
		// Anything the component started that outlived it goes too.
		if err := syscall.Kill(pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill what is left of %s: %w", p.name, err)
		}
		return nil
	case <-timer.C:
	}
	if err := syscall.Kill(pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill %s: %w", p.name, err)
	}
	<-p.done
	return fmt.Errorf("%s did not stop within %s of SIGTERM and was killed", p.name, p.grace)
}

// logTail returns the last n lines of the component's log.
func (p *process) logTail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	data = bytes.TrimRight(data, "\n")
	for i := len(data) - 1; i >= 0; i-- {
		if data[i] == '\n' {
			n--
			if n == 0 {
				return string(data[i+1:])
			}
		}
	}
	return string(data)
}
