package framework

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// BinDirEnv overrides where the control plane binaries are taken from.
const BinDirEnv = "CONTROLPLANE_BIN_DIR"

// BuildCommand is what builds the binaries; error messages name it.
const BuildCommand = "hack/controlplane/build.sh"

const modulePath = "github.com/broker-operator/broker-operator"

// Options configure Start. The zero value is usable.
type Options struct {
	// BinDir holds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok.
	// Default: $CONTROLPLANE_BIN_DIR, else _output/bin at the repository root.
	BinDir string
	// KwokStages is kwok's stage configuration. Default: kwok/stages.yaml beside BinDir.
	KwokStages string
	// TempDir is where the control plane's own directory is created. Default: os.TempDir().
	TempDir string
	// StartTimeout bounds the whole start. Default: 2 minutes.
	StartTimeout time.Duration
	// FakeNodes is how many fake Nodes kwok plays (FakeNodeNames). Default: DefaultFakeNodes.
	FakeNodes int
	// PodStop is how long a pod being deleted takes to stop before its kubelet removes it, as a
	// broker shutting down does (within its grace period). Default: nil, at once: kwok runs no
	// containers.
	PodStop func(*corev1.Pod) time.Duration
	// Logf receives progress messages. Default: none.
	Logf func(format string, args ...any)
}

var binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

func (o Options) withDefaults() (Options, error) {
	if o.BinDir == "" {
		o.BinDir = os.Getenv(BinDirEnv)
	}
	if o.BinDir == "" {
		root, err := RepositoryRoot()
		if err != nil {
			return o, fmt.Errorf("cannot find the control plane binaries (set %s or Options.BinDir): %w", BinDirEnv, err)
		}
		o.BinDir = filepath.Join(root, "_output", "bin")
	}
	if o.KwokStages == "" {
		o.KwokStages = filepath.Join(filepath.Dir(o.BinDir), "kwok", "stages.yaml")
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 2 * time.Minute
	}
	if o.FakeNodes <= 0 {
		o.FakeNodes = DefaultFakeNodes
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	var missing []string
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(o.BinDir, b)); err != nil {
			missing = append(missing, b)
		}
	}
	if _, err := os.Stat(o.KwokStages); err != nil {
		missing = append(missing, "kwok stages ("+o.KwokStages+")")
	}
	if len(missing) > 0 {
		return o, fmt.Errorf("control plane binaries missing from %s: %s; build them with %s (or point %s at a directory that has them)",
			o.BinDir, strings.Join(missing, ", "), BuildCommand, BinDirEnv)
	}
	return o, nil
}

// RepositoryRoot walks up from the working directory to the go.mod of this module.
func RepositoryRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isModuleRoot(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of " + modulePath + " above the working directory")
		}
		dir = parent
	}
}

func isModuleRoot(goMod string) bool {
	f, err := os.Open(goMod)
	if err != nil {
		return false
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if line := strings.TrimSpace(scanner.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == modulePath
		}
	}
	return false
}
