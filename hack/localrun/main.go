// Command localrun runs the operator against a real local control plane, with simulated brokers,
// until Ctrl-C: the README's `make run`.
//
//	go run ./hack/localrun
//
// It builds the control plane (hack/controlplane/build.sh, only what is missing) and the
// operator, starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on
// 127.0.0.1, the broker simulator, installs deploy/'s CRD and RBAC, starts the operator as its
// ServiceAccount with -v=2, creates deploy/examples/brokercluster.yaml (with SASL) and, on it,
// deploy/examples/brokertopic.yaml and brokeruser.yaml, served by franz-go's in-process Kafka
// (kfake) on 127.0.0.1, and prints the kubectl lines to look at them. Ctrl-C stops everything and
// removes its files.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
)

type options struct {
	drainTime    time.Duration
	readyDelay   time.Duration
	verbosity    int
	keepLogs     bool
	namespace    string
	startTimeout time.Duration
}

// The operator is started from the main goroutine with a parent-death signal, which Linux ties to
// the starting thread: keep the main goroutine on the main thread, which lives as long as we do.
func init() { runtime.LockOSThread() }

func main() {
	var o options
	flag.DurationVar(&o.drainTime, "drain-time", 5*time.Second, "how long a simulated broker takes to drain when decommissioned")
	flag.DurationVar(&o.readyDelay, "ready-delay", 2*time.Second, "how long a broker Pod takes to become Ready")
	flag.IntVar(&o.verbosity, "v", 2, "the operator's klog verbosity (2: one line per decision)")
	flag.BoolVar(&o.keepLogs, "keep-logs", false, "keep the control plane's logs after stopping")
	flag.StringVar(&o.namespace, "namespace", "default", "namespace of the example BrokerCluster")
	flag.DurationVar(&o.startTimeout, "start-timeout", 3*time.Minute, "how long the control plane may take to start")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "localrun: unexpected arguments %v\n", flag.Args())
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "localrun:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	root, err := repositoryRoot()
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		return errors.New("kubectl is not on PATH; it is needed to install deploy/ and to watch the cluster")
	}
	// Ctrl-C reaches this process only: every child runs in its own process group and is stopped
	// in order below. A second Ctrl-C, once shutdown has begun, ends this process at once.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	if err := build(ctx, root); err != nil {
		return err
	}
	l, err := start(ctx, root, o)
	if l != nil {
		defer func() {
			stopSignals()
			progress("stopping")
			if err := l.stop(o.keepLogs); err != nil {
				fmt.Fprintln(os.Stderr, "localrun: stop:", err)
			}
			progress("stopped")
		}()
	}
	if err != nil {
		return err
	}
	printHowTo(l, o)
	select {
	case <-ctx.Done():
		return nil
	case <-l.operator.done:
		return fmt.Errorf("the operator exited: %v", l.operator.waitErr)
	}
}

// build runs the control plane's build script for what the local run starts (not the real
// node's kubelet and kube-proxy, nor helm), which rebuilds only what is missing or outdated and
// prints its own progress, then builds the operator.
func build(ctx context.Context, root string) error {
	progress("building the control plane if needed (%s)", "hack/controlplane/build.sh")
	script := exec.CommandContext(ctx, filepath.Join(root, "hack", "controlplane", "build.sh"),
		"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
	script.Dir, script.Stdout, script.Stderr = root, os.Stderr, os.Stderr
	if err := script.Run(); err != nil {
		return fmt.Errorf("build the control plane: %w", err)
	}
	started := time.Now()
	progress("building the operator (_output/bin/broker-operator)")
	goBuild := exec.CommandContext(ctx, "go", "build", "-o", operatorBinary(root), "./cmd/broker-operator")
	goBuild.Dir, goBuild.Stdout, goBuild.Stderr = root, os.Stderr, os.Stderr
	if err := goBuild.Run(); err != nil {
		return fmt.Errorf("build the operator: %w", err)
	}
	progress("operator built in %s", time.Since(started).Round(100*time.Millisecond))
	return nil
}

func operatorBinary(root string) string {
	return filepath.Join(root, "_output", "bin", "broker-operator")
}

// repositoryRoot is the working directory, which must be the checkout's root.
func repositoryRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for _, want := range []string{"go.mod", "deploy/examples/brokercluster.yaml", "hack/controlplane/build.sh"} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			return "", fmt.Errorf("run this from the repository's root directory (no %s in %s)", want, dir)
		}
	}
	return dir, nil
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[localrun %s] %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}
