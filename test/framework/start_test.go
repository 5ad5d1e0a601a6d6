package framework

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinDir makes a bin directory whose etcd prints a complaint and exits.
func fakeBinDir(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	binDir := filepath.Join(out, "bin")
	stages := filepath.Join(out, "kwok", "stages.yaml")
	failing := "#!/bin/sh\necho \"unknown flag: --frobnicate\" >&2\nexit 2\n"
	for _, path := range append([]string{stages}, binaryPaths(binDir)...) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(failing), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return binDir
}

func TestStartReportsAComponentThatExitsAndKeepsItsLog(t *testing.T) {
	tempDir := t.TempDir()
	_, err := Start(t.Context(), Options{BinDir: fakeBinDir(t), TempDir: tempDir})
	if err == nil {
		t.Fatal("Start succeeded with an etcd that exits at once")
	}
	for _, want := range []string{"etcd exited", "exit status 2", "unknown flag: --frobnicate", "logs kept in"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(tempDir, "controlplane-*"))
	if len(dirs) != 1 {
		t.Fatalf("control plane directories %v, want one", dirs)
	}
	entries, err := os.ReadDir(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "logs" {
		t.Errorf("after a failed start the directory holds %v, want only logs", entries)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "logs", "etcd.log")); err != nil {
		t.Errorf("etcd's log was not kept: %v", err)
	}
}
