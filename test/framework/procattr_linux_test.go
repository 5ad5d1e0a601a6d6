package framework

import (
	"context"
	"errors"
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
