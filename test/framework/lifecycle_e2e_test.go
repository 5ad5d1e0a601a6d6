//go:build e2e

package framework

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// These tests run the real binaries from hack/controlplane/build.sh.

func TestStopEndsEveryComponentAndRemovesItsFiles(t *testing.T) {
	cp, err := Start(t.Context(), Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range cp.processes {
		if err := p.exitError(); err != nil {
			t.Errorf("component not running after Start: %v", err)
		}
		names = append(names, p.name)
	}
	if !slices.Equal(names, binaries) {
		t.Errorf("started %v, want %v", names, binaries)
	}
	if err := cp.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	for _, p := range cp.processes {
		select {
		case <-p.done:
		default:
			t.Errorf("%s still runs after Stop", p.name)
		}
	}
	if _, err := os.Stat(cp.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Stop (stat: %v)", cp.Dir, err)
	}
	if err := cp.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestStopKeepingLogsLeavesOnlyTheLogs(t *testing.T) {
	cp, err := Start(t.Context(), Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.StopKeepingLogs(); err != nil {
		t.Errorf("StopKeepingLogs: %v", err)
	}
	entries, err := os.ReadDir(cp.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || filepath.Join(cp.Dir, entries[0].Name()) != cp.LogDir {
		t.Errorf("%s holds %v, want only the log directory", cp.Dir, entries)
	}
	for _, b := range binaries {
		info, err := os.Stat(filepath.Join(cp.LogDir, b+".log"))
		if err != nil || info.Size() == 0 {
			t.Errorf("log of %s missing or empty: %v", b, err)
		}
	}
}
