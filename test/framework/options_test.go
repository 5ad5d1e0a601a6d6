package framework

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMissingBinariesNameTheBuildCommand(t *testing.T) {
	binDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(binDir, "etcd"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Options{BinDir: binDir}.withDefaults()
	if err == nil {
		t.Fatal("withDefaults accepted a directory without the binaries")
	}
	for _, want := range []string{BuildCommand, "kube-apiserver", "kwok stages", BinDirEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "etcd,") {
		t.Errorf("error %q lists etcd, which is present", err)
	}
}

func TestDefaultsFindBinariesFromEnvironment(t *testing.T) {
	out := t.TempDir()
	binDir := filepath.Join(out, "bin")
	stages := filepath.Join(out, "kwok", "stages.yaml")
	for _, path := range append([]string{stages}, binaryPaths(binDir)...) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(BinDirEnv, binDir)
	opts, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if opts.BinDir != binDir || opts.KwokStages != stages {
		t.Errorf("BinDir, KwokStages = %q, %q; want %q, %q", opts.BinDir, opts.KwokStages, binDir, stages)
	}
	if opts.StartTimeout <= 0 || opts.Logf == nil {
		t.Error("StartTimeout and Logf were not defaulted")
	}
	if opts.FakeNodes != DefaultFakeNodes {
		t.Errorf("FakeNodes = %d, want the default %d", opts.FakeNodes, DefaultFakeNodes)
	}
}

func binaryPaths(dir string) []string {
	var paths []string
	for _, b := range binaries {
		paths = append(paths, filepath.Join(dir, b))
	}
	return paths
}

func TestRepositoryRootIsThisModule(t *testing.T) {
	root, err := RepositoryRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "test", "framework", "options.go")); err != nil {
		t.Errorf("repositoryRoot = %s, which does not hold this package", root)
	}
}

func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v: %d is invalid or repeated", ports, p)
		}
		seen[p] = true
	}
}
