package framework

import (
	"fmt"
	"os"
	"testing"
)

// orphanHelperEnv makes the test binary act as a process that starts a component and dies.
const orphanHelperEnv = "FRAMEWORK_ORPHAN_HELPER_LOG"

func TestMain(m *testing.M) {
	if logPath := os.Getenv(orphanHelperEnv); logPath != "" {
		runOrphanHelper(logPath)
	}
	os.Exit(m.Run())
}

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
