package framework

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if logPath := os.Getenv(orphanHelperEnv); logPath != "" {
		runOrphanHelper(logPath)
	}
	os.Exit(m.Run())
}
