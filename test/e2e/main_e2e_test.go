//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
)

// suite is what every scenario shares: one control plane with deploy/'s CRD and RBAC installed,
// one broker simulator fed by the real Pods, and the operator binary.
type suite struct {
	cp       *framework.ControlPlane
	kube     kubernetes.Interface
	brokers  versioned.Interface
	sim      *admintest.Server
	pods     *brokersim.PodSync
	repoRoot string
	// operatorBinary is built from this checkout for the run.
	operatorBinary string
	// operatorKubeconfig authenticates as the operator's ServiceAccount: only deploy/'s RBAC.
	operatorKubeconfig string
}

var env *suite

const (
	// setupLimit bounds the whole setup: the operator build and the control plane start.
	setupLimit = 5 * time.Minute
	// operatorTokenLifetime outlasts any run of the suite.
	operatorTokenLifetime = 2 * time.Hour
)

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, stop, err := setUp(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
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
	cancel()
	stop(code != 0)
	return code
}

// setUp builds the operator and starts everything. stop undoes whatever was started, keeping
// the control plane's logs when asked.
func setUp(ctx context.Context) (s *suite, stop func(keepLogs bool), err error) {
	var undo []func(keepLogs bool)
	stop = func(keepLogs bool) {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i](keepLogs)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, setupLimit)
	defer cancel()

	s = &suite{}
	if s.repoRoot, err = filepath.Abs("../.."); err != nil {
		return nil, stop, err
	}
	binDir, err := os.MkdirTemp("", "e2e-operator-")
	if err != nil {
		return nil, stop, err
	}
	undo = append(undo, func(bool) { os.RemoveAll(binDir) })
	s.operatorBinary = filepath.Join(binDir, "broker-operator")
	args := []string{"build", "-o", s.operatorBinary}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.CommandContext(ctx, "go", append(args, "./cmd/broker-operator")...)
	build.Dir = s.repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		return nil, stop, fmt.Errorf("build the operator: %w\n%s", err, out)
	}

	s.cp, err = framework.Start(ctx, framework.Options{Logf: func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }})
	if err != nil {
		return nil, stop, err
	}
	undo = append(undo, func(keepLogs bool) {
		if keepLogs {
			_ = s.cp.StopKeepingLogs()
			fmt.Fprintln(os.Stderr, "control plane logs kept in", s.cp.LogDir)
			return
		}
		_ = s.cp.Stop()
	})
	s.kube = kubernetes.NewForConfigOrDie(s.cp.AdminConfig())
	s.brokers = versioned.NewForConfigOrDie(s.cp.AdminConfig())

	if err := brokersim.Install(ctx, s.repoRoot, s.cp.KubeconfigPath); err != nil {
		return nil, stop, err
	}
	s.operatorKubeconfig, err = s.cp.ServiceAccountKubeconfig(ctx, brokersim.OperatorNamespace, brokersim.OperatorServiceAccount, operatorTokenLifetime)
	if err != nil {
		return nil, stop, err
	}

	s.sim, err = admintest.Start(admintest.Options{})
	if err != nil {
		return nil, stop, err
	}
	undo = append(undo, func(bool) { s.sim.Close() })
	// The watches outlive setUp's deadline.
	s.pods, err = brokersim.StartPodSync(context.Background(), s.kube, s.sim, "")
	if err != nil {
		return nil, stop, err
	}
	undo = append(undo, func(bool) { s.pods.Stop() })
	volumes, err := brokersim.StartVolumeBinder(context.Background(), s.kube, "")
	if err != nil {
		return nil, stop, err
	}
	undo = append(undo, func(bool) { volumes.Stop() })
	return s, stop, nil
}

// checkNoForbiddenRequests fails if the operator's ServiceAccount was refused anything: a
// controller often only logs a Forbidden answer, so the apiserver's audit log is the judge.
func (s *suite) checkNoForbiddenRequests() error {
	forbidden, err := s.cp.ForbiddenRequests()
	if err != nil {
		return fmt.Errorf("read the audit log: %w", err)
	}
	var errs []error
	for _, r := range forbidden {
		if r.User == operatorUser {
			errs = append(errs, errors.New(r.String()))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("RBAC refused the operator (deploy/rbac lacks a rule, or the operator asks for too much):\n%w", errors.Join(errs...))
	}
	return nil
}

const operatorUser = "system:serviceaccount:" + brokersim.OperatorNamespace + ":" + brokersim.OperatorServiceAccount
