//go:build e2e

package node

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/brokerenv"
	"github.com/broker-operator/broker-operator/test/framework"
)

// suite is what every test shares: one real node with the operator deployed from deploy/, and
// the broker simulator fed by the broker Pods.
type suite struct {
	*brokerenv.Env
	node     *framework.RealNode
	repoRoot string
	// image is the operator image's name, as make image wrote it into the tar.
	image string
	// aliases are other names tests gave the same image (TagImage). containerd reports a
	// container's image by one of the image's names, not necessarily the one the Pod asked for.
	aliases []string
}

// isSuiteImage reports whether name is the operator image under any of its names.
func (s *suite) isSuiteImage(name string) bool {
	return name == s.image || slices.Contains(s.aliases, name)
}

var (
	env        *suite
	skipReason string
)

// OperatorImageTarEnv overrides where the operator image's tar is read from.
const OperatorImageTarEnv = "OPERATOR_IMAGE_TAR"

// setupLimit bounds the node's start and the operator's first rollout.
const setupLimit = 4 * time.Minute

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	if skipReason = framework.RealNodeUnsupported(); skipReason != "" {
		fmt.Fprintln(os.Stderr, "real-node tests skip:", skipReason)
		return m.Run()
	}
	s, stop, err := setUp(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "real-node setup:", err)
		stop(true)
		return 1
	}
	env = s
	code := brokerenv.RunAndCheck(m, s.checkNoForbiddenRequests)
	stop(code != 0)
	return code
}

// requireNode skips the test where the node cannot run.
func requireNode(t *testing.T) *suite {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	return env
}

func setUp(ctx context.Context) (s *suite, stop func(keepLogs bool), err error) {
	undo := &brokerenv.Undo{}
	stop = undo.Run
	ctx, cancel := context.WithTimeout(ctx, setupLimit)
	defer cancel()
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }

	s = &suite{}
	if s.repoRoot, err = filepath.Abs("../.."); err != nil {
		return nil, stop, err
	}
	imageTar := os.Getenv(OperatorImageTarEnv)
	if imageTar == "" {
		imageTar = filepath.Join(s.repoRoot, "_output", "image", "broker-operator.tar")
	}
	if s.image, err = imageName(imageTar); err != nil {
		return nil, stop, fmt.Errorf("the operator image (make image builds it): %w", err)
	}

	s.node, err = framework.StartRealNode(ctx, framework.RealNodeOptions{
		Options: framework.Options{Logf: logf},
		Images:  []string{imageTar},
	})
	if err != nil {
		return nil, stop, err
	}
	undo.Push(func(keepLogs bool) {
		if keepLogs {
			_ = s.node.StopKeepingLogs()
			logf("real node logs kept in %s", s.node.LogDir)
			return
		}
		if err := s.node.Stop(); err != nil {
			logf("stop the real node: %v", err)
		}
	})
	s.Env, err = brokerenv.Start(brokerenv.Config{
		Kube:       kubernetes.NewForConfigOrDie(s.node.AdminConfig()),
		Brokers:    versioned.NewForConfigOrDie(s.node.AdminConfig()),
		Kubeconfig: s.node.KubeconfigPath,
		// The operator's Pods reach the simulated brokers on the node address, inside this
		// network namespace.
		SimOptions:      admintest.Options{Host: framework.RealNodeIP},
		NamespacePrefix: "node-e2e-",
		// A test's namespace stays until the node goes: the operator watches every namespace,
		// and its writes into a terminating one would be refused with 403, which the suite's
		// final RBAC check cannot tell from a missing rule.
		KeepNamespaces: true,
	})
	if err != nil {
		return nil, stop, err
	}
	undo.Push(func(bool) { s.Env.Stop() })

	started := time.Now()
	if err := s.deploy(ctx); err != nil {
		return nil, stop, err
	}
	logf("operator deployed from deploy/ with image %s and rolled out in %s", s.image, time.Since(started).Round(time.Millisecond))
	return s, stop, nil
}

// imageName reads the name an image tar carries, the one ctr gives the image on import.
func imageName(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("%s has no index.json", path)
		}
		if err != nil {
			return "", err
		}
		if hdr.Name != "index.json" {
			continue
		}
		var index struct {
			Manifests []struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"manifests"`
		}
		if err := json.NewDecoder(tr).Decode(&index); err != nil {
			return "", fmt.Errorf("%s: index.json: %w", path, err)
		}
		for _, m := range index.Manifests {
			if name := m.Annotations["io.containerd.image.name"]; name != "" {
				return name, nil
			}
		}
		return "", fmt.Errorf("%s: index.json names no image", path)
	}
}

// checkNoForbiddenRequests fails if RBAC refused the operator's ServiceAccount, deploy/'s or the
// chart's, anything.
func (s *suite) checkNoForbiddenRequests() error {
	return brokerenv.CheckNoForbiddenRequests(s.node.ControlPlane, brokerenv.OperatorUser, chartUser)
}
