package framework

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

func startShell(t *testing.T, script string) *process {
	t.Helper()
	p, err := startProcess("shell", "/bin/sh", filepath.Join(t.TempDir(), "shell.log"), []string{"-c", script})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) })
	return p
}

// waitGroupGone waits until no process of the group is left; the kernel needs a moment to reap
// processes that were re-parented when their group leader exited.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH), nil
	})
	if err != nil {
		t.Errorf("a process of group %d survived: %v", pgid, err)
	}
}

func TestStopEndsTheWholeProcessGroup(t *testing.T) {
	p := startShell(t, "sleep 300 & wait")
	if err := p.exitError(); err != nil {
		t.Fatalf("process ended early: %v", err)
	}
	if err := p.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	waitGroupGone(t, p.cmd.Process.Pid)
	if err := p.stop(); err != nil {
		t.Errorf("second stop: %v", err)
	}
}

func TestStopKillsAProcessThatIgnoresSIGTERM(t *testing.T) {
	// The script says when its trap is set, so SIGTERM cannot arrive before it.
	p := startShell(t, `trap "" TERM; echo trapped; sleep 300 & wait`)
	waitForLog(t, p, "trapped")
	p.grace = 100 * time.Millisecond
	err := p.stop()
	if err == nil || !strings.Contains(err.Error(), "was killed") {
		t.Errorf("stop = %v, want an error saying it was killed", err)
	}
	waitGroupGone(t, p.cmd.Process.Pid)
}

func TestExitErrorReportsStatusAndLogTail(t *testing.T) {
	p := startShell(t, "echo first; echo 'listen failed: address in use' >&2; exit 3")
	<-p.done
	err := p.exitError()
	if err == nil {
		t.Fatal("exitError = nil for a process that exited")
	}
	for _, want := range []string{"shell exited", "exit status 3", "listen failed: address in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("exitError %q does not mention %q", err, want)
		}
	}
}

func waitForLog(t *testing.T, p *process, text string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		if err := p.exitError(); err != nil {
			return false, err
		}
		return strings.Contains(p.logTail(5), text), nil
	})
	if err != nil {
		t.Fatalf("waiting for %q in the log: %v", text, err)
	}
}

func TestLogTail(t *testing.T) {
	p := startShell(t, "printf 'a\\nb\\nc\\nd\\n'")
	<-p.done
	if got := p.logTail(2); got != "c\nd" {
		t.Errorf("logTail(2) = %q, want %q", got, "c\nd")
	}
	if got := p.logTail(10); got != "a\nb\nc\nd" {
		t.Errorf("logTail(10) = %q, want the whole log", got)
	}
}
