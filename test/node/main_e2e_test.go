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
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
)

// suite is what every test shares: one real node with the operator deployed from deploy/, and
// the broker simulator fed by the broker Pods.
type suite struct {
	node     *framework.RealNode
	kube     kubernetes.Interface
	brokers  versioned.Interface
	sim      *admintest.Server
	pods     *brokersim.PodSync
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
	code := m.Run()
	if code == 0 {
		if err := s.checkNoForbiddenRequests(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
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
	var undo []func(keepLogs bool)
	stop = func(keepLogs bool) {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i](keepLogs)
		}
	}
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
	undo = append(undo, func(keepLogs bool) {
		if keepLogs {
			_ = s.node.StopKeepingLogs()
			logf("real node logs kept in %s", s.node.LogDir)
			return
		}
		if err := s.node.Stop(); err != nil {
			logf("stop the real node: %v", err)
		}
	})
	s.kube = kubernetes.NewForConfigOrDie(s.node.AdminConfig())
	s.brokers = versioned.NewForConfigOrDie(s.node.AdminConfig())

	// The operator's Pods reach the simulated brokers on the node address, inside this namespace.
	s.sim, err = admintest.Start(admintest.Options{Host: framework.RealNodeIP})
	if err != nil {
		return nil, stop, err
	}
	undo = append(undo, func(bool) { s.sim.Close() })
	if s.pods, err = brokersim.StartPodSync(context.Background(), s.kube, s.sim, ""); err != nil {
		return nil, stop, err
	}
	undo = append(undo, func(bool) { s.pods.Stop() })
	volumes, err := brokersim.StartVolumeBinder(context.Background(), s.kube, "")
	if err != nil {
		return nil, stop, err
	}
	undo = append(undo, func(bool) { volumes.Stop() })

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

// checkNoForbiddenRequests fails if RBAC refused the operator's ServiceAccount anything.
func (s *suite) checkNoForbiddenRequests() error {
	forbidden, err := s.node.ForbiddenRequests()
	if err != nil {
		return fmt.Errorf("read the audit log: %w", err)
	}
	var errs []error
	for _, r := range forbidden {
		if r.User == operatorUser || r.User == chartUser {
			errs = append(errs, errors.New(r.String()))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("RBAC refused the operator's Pods:\n%w", errors.Join(errs...))
	}
	return nil
}

const operatorUser = "system:serviceaccount:" + brokersim.OperatorNamespace + ":" + brokersim.OperatorServiceAccount
