//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/brokerenv"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
)

// suite is what every scenario shares: one control plane with deploy/'s CRD and RBAC installed,
// one broker simulator fed by the real Pods, and the operator binary.
type suite struct {
	*brokerenv.Env
	cp       *framework.ControlPlane
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
	code := brokerenv.RunAndCheck(m, s.checkNoForbiddenRequests)
	cancel()
	stop(code != 0)
	return code
}

// setUp builds the operator and starts everything. stop undoes whatever was started, keeping
// the control plane's logs when asked.
func setUp(ctx context.Context) (s *suite, stop func(keepLogs bool), err error) {
	undo := &brokerenv.Undo{}
	stop = undo.Run
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
	undo.Push(func(bool) { os.RemoveAll(binDir) })
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
	undo.Push(func(keepLogs bool) {
		if keepLogs {
			_ = s.cp.StopKeepingLogs()
			fmt.Fprintln(os.Stderr, "control plane logs kept in", s.cp.LogDir)
			return
		}
		_ = s.cp.Stop()
	})
	if err := brokersim.Install(ctx, s.repoRoot, s.cp.KubeconfigPath); err != nil {
		return nil, stop, err
	}
	s.operatorKubeconfig, err = s.cp.ServiceAccountKubeconfig(ctx, brokersim.OperatorNamespace, brokersim.OperatorServiceAccount, operatorTokenLifetime)
	if err != nil {
		return nil, stop, err
	}

	s.Env, err = brokerenv.Start(brokerenv.Config{
		Kube:            kubernetes.NewForConfigOrDie(s.cp.AdminConfig()),
		Brokers:         versioned.NewForConfigOrDie(s.cp.AdminConfig()),
		Kubeconfig:      s.cp.KubeconfigPath,
		NamespacePrefix: "e2e-",
	})
	if err != nil {
		return nil, stop, err
	}
	undo.Push(func(bool) { s.Env.Stop() })
	return s, stop, nil
}

// checkNoForbiddenRequests fails if the operator's ServiceAccount was refused anything.
func (s *suite) checkNoForbiddenRequests() error {
	return brokerenv.CheckNoForbiddenRequests(s.cp, brokerenv.OperatorUser)
}
