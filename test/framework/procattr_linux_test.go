package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

const orphanHelperEnv = "FRAMEWORK_ORPHAN_HELPER_LOG"

// runOrphanHelper runs in a child process (see TestMain): it starts a component, prints the
// component's PID and exits without stopping it.
func runOrphanHelper(logPath string) {
	p, err := startProcess("sleeper", "/bin/sh", logPath, []string{"-c", "exec sleep 300"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("pid", p.cmd.Process.Pid)
	os.Exit(0)
}

func TestComponentsDieWithTheirParent(t *testing.T) {
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), orphanHelperEnv+"="+filepath.Join(t.TempDir(), "sleeper.log"))
	out, err := helper.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var pid int
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "pid "); ok {
			pid, _ = strconv.Atoi(rest)
		}
	}
	if pid <= 0 {
		t.Fatalf("helper printed no pid:\n%s", out)
	}
	err = wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH), nil
	})
	if err != nil {
		syscall.Kill(-pid, syscall.SIGKILL)
		t.Errorf("component %d outlived the process that started it: %v", pid, err)
	}
}
