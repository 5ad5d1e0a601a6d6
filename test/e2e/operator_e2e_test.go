//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/test/brokersim"
)

// operatorStopGrace is how long an operator gets to shut down after SIGTERM.
const operatorStopGrace = 20 * time.Second

// operator is one broker-operator process, run as its ServiceAccount and watching one namespace.
type operator struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
}

// operatorFlags are the flags every operator of a test gets. The Lease is named after the test's
// namespace, so that tests running side by side elect their leaders apart; the short lease and
// poll times keep the scenarios quick.
func operatorFlags(ns string) []string {
	return []string{
		"--kubeconfig=" + env.operatorKubeconfig,
		"--namespace=" + ns,
		"--leader-elect=true",
		"--leader-elect-lease-namespace=" + brokersim.OperatorNamespace,
		"--leader-elect-lease-name=" + ns,
		"--leader-elect-lease-duration=4s",
		"--leader-elect-renew-deadline=3s",
		"--leader-elect-retry-period=500ms",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=0",
		"--admin-address-template=" + env.Sim.BrokerAddressTemplate(),
		"--admin-timeout=5s",
		"--drain-poll-interval=200ms",
		"-v=4",
	}
}

// startOperator starts an operator for namespace ns, with extraFlags after operatorFlags (a flag
// given twice takes its last value). It is stopped when the test ends; if the test failed its log
// is kept and named.
func startOperator(t *testing.T, ns, name string, extraFlags ...string) *operator {
	t.Helper()
	logDir := filepath.Join(os.TempDir(), "e2e-operator-logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	op := &operator{name: name, logPath: filepath.Join(logDir, ns+"-"+name+".log"), done: make(chan struct{})}
	logFile, err := os.Create(op.logPath)
	if err != nil {
		t.Fatal(err)
	}
	op.cmd = exec.Command(env.operatorBinary, append(operatorFlags(ns), extraFlags...)...)
	op.cmd.Stdout, op.cmd.Stderr = logFile, logFile
	op.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := startOnLockedThread(op.cmd); err != nil {
		logFile.Close()
		t.Fatalf("start operator %s: %v", name, err)
	}
	go func() {
		_ = op.cmd.Wait()
		logFile.Close()
		close(op.done)
	}()
	t.Cleanup(func() {
		op.stop(t)
		if op.logContains("WARNING: DATA RACE") {
			t.Errorf("%s hit a data race; see its log", op)
		}
		if t.Failed() {
			t.Logf("operator %s log kept in %s", name, op.logPath)
		} else {
			os.Remove(op.logPath)
		}
	})
	return op
}

// kill ends the operator at once, as a crash or a lost node would: no Lease release, no cleanup.
func (op *operator) kill(t *testing.T) {
	t.Helper()
	if err := op.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill operator %s: %v", op.name, err)
	}
	<-op.done
}

// stop asks the operator to shut down and kills it if it has not within operatorStopGrace.
func (op *operator) stop(t *testing.T) {
	select {
	case <-op.done:
		return
	default:
	}
	_ = op.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-op.done:
	case <-time.After(operatorStopGrace):
		t.Errorf("operator %s did not stop within %s of SIGTERM; killed", op.name, operatorStopGrace)
		_ = op.cmd.Process.Signal(syscall.SIGKILL)
		<-op.done
	}
}

// exited reports whether the process has ended.
func (op *operator) exited() bool {
	select {
	case <-op.done:
		return true
	default:
		return false
	}
}

// logContains reports whether the operator's log has a line with text in it.
func (op *operator) logContains(text string) bool {
	data, err := os.ReadFile(op.logPath)
	return err == nil && bytes.Contains(data, []byte(text))
}

func (op *operator) String() string {
	return fmt.Sprintf("operator %s (pid %d)", op.name, op.cmd.Process.Pid)
}

// The kernel sends the parent-death signal when the thread that started a child ends, not the
// process; so every operator is started from one goroutine that keeps its thread for good.
var (
	spawnerOnce sync.Once
	spawns      chan func()
)

func startOnLockedThread(cmd *exec.Cmd) error {
	spawnerOnce.Do(func() {
		spawns = make(chan func())
		go func() {
			runtime.LockOSThread()
			for spawn := range spawns {
				spawn()
			}
		}()
	})
	result := make(chan error, 1)
	spawns <- func() { result <- cmd.Start() }
	return <-result
}
