package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ControlPlane is a running local cluster. Stop it when done.
type ControlPlane struct {
	// Dir is the control plane's own temporary directory; Stop removes it.
	Dir string
	// LogDir holds one log file per component.
	LogDir string
	// KubeconfigPath is an admin kubeconfig, usable with kubectl.
	KubeconfigPath string
	// APIServerURL is the apiserver's https address on 127.0.0.1.
	APIServerURL string

	admin *rest.Config
	caPEM []byte
	audit auditFiles
	logf  func(format string, args ...any)
	// fakeNodes are the fake Nodes started with the control plane (Options.FakeNodes).
	fakeNodes []string
	// finisher finishes the fake Nodes' pod deletes in kwok's place (podfinisher.go).
	finisher *podFinisher

	mu        sync.Mutex
	processes []*process     // in start order
	restarts  map[string]int // components that exited on their own and were started again
	stopped   chan struct{}  // closed, under mu, once Stop has begun: nothing is started again after it

	stopOnce sync.Once
	stopErr  error
}

// Start runs etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on free
// loopback ports, and returns once the apiserver is ready and every fake Node is schedulable.
// ctx bounds the start only; the processes run until Stop. On error everything started is stopped
// and the logs are kept (the error says where).
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(opts.TempDir, "controlplane-")
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{Dir: dir, LogDir: filepath.Join(dir, "logs"), logf: opts.Logf, stopped: make(chan struct{})}
	if err := os.MkdirAll(cp.LogDir, 0o755); err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	started := time.Now()
	if err := cp.start(ctx, opts); err != nil {
		stopErr := cp.stop(true)
		return nil, errors.Join(fmt.Errorf("start control plane (logs kept in %s): %w", cp.LogDir, err), stopErr)
	}
	cp.logf("control plane ready in %s: %s (kubeconfig %s)", time.Since(started).Round(time.Millisecond), cp.APIServerURL, cp.KubeconfigPath)
	return cp, nil
}

func (cp *ControlPlane) start(ctx context.Context, opts Options) error {
	ports, err := freePorts(5)
	if err != nil {
		return err
	}
	etcdClient, etcdPeer, apiPort, kcmPort, schedulerPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	cp.APIServerURL = "https://127.0.0.1:" + strconv.Itoa(apiPort)

	p, err := writePKI(cp.Dir)
	if err != nil {
		return fmt.Errorf("generate keys: %w", err)
	}
	cp.caPEM = p.caCertPEM
	kubeconfigs, tokensFile, err := cp.writeCredentials()
	if err != nil {
		return err
	}
	cp.KubeconfigPath = kubeconfigs["admin"]
	if cp.audit, err = writeAuditPolicy(cp.Dir); err != nil {
		return err
	}

	step := time.Now()
	etcd, err := cp.run(opts, "etcd", etcdArgs(filepath.Join(cp.Dir, "etcd-data"), etcdClient, etcdPeer))
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, []*process{etcd}, "etcd /health", plainHTTPCheck("http://127.0.0.1:"+strconv.Itoa(etcdClient)+"/health")); err != nil {
		return err
	}
	cp.logf("etcd healthy in %s", time.Since(step).Round(time.Millisecond))

	step = time.Now()
	apiserver, err := cp.run(opts, "kube-apiserver", apiserverArgs(cp.Dir, p, etcdClient, apiPort, tokensFile, cp.audit))
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cp.admin)
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, []*process{etcd, apiserver}, "kube-apiserver /readyz", apiserverReadyCheck(client)); err != nil {
		return err
	}
	cp.logf("kube-apiserver ready in %s", time.Since(step).Round(time.Millisecond))

	step = time.Now()
	if cp.fakeNodes, err = createFakeNodes(ctx, client, opts.FakeNodes); err != nil {
		return err
	}
	kcm, err := cp.run(opts, "kube-controller-manager", controllerManagerArgs(cp.Dir, kubeconfigs["kube-controller-manager"], p, kcmPort))
	if err != nil {
		return err
	}
	scheduler, err := cp.run(opts, "kube-scheduler", schedulerArgs(cp.Dir, kubeconfigs["kube-scheduler"], schedulerPort))
	if err != nil {
		return err
	}
	stages, err := writeKwokStages(cp.Dir, opts.KwokStages)
	if err != nil {
		return err
	}
	kwok, err := cp.run(opts, "kwok", kwokArgs(kubeconfigs["kwok"], stages))
	if err != nil {
		return err
	}
	if cp.finisher, err = startPodFinisherFrom(kubeconfigs[podFinisherUser], opts.PodStop, cp.fakeNodes...); err != nil {
		return err
	}
	all := []*process{etcd, apiserver, kcm, scheduler, kwok}
	if err := waitHealthy(ctx, all, "kube-controller-manager /healthz", localTLSCheck(kcmPort, "/healthz")); err != nil {
		return err
	}
	if err := waitHealthy(ctx, all, "kube-scheduler /healthz", localTLSCheck(schedulerPort, "/healthz")); err != nil {
		return err
	}
	if err := waitHealthy(ctx, all, "fake nodes schedulable", nodeSchedulableCheck(client, cp.fakeNodes)); err != nil {
		return err
	}
	cp.logf("controller-manager, scheduler and kwok ready in %s", time.Since(step).Round(time.Millisecond))
	for _, name := range supervised {
		go cp.supervise(name)
	}
	return nil
}

// writeCredentials writes the static tokens file and one kubeconfig per client. Every component
// is a superuser: this cluster exists for tests, and the operator's own identity is a ServiceAccount.
func (cp *ControlPlane) writeCredentials() (kubeconfigs map[string]string, tokensFile string, err error) {
	kubeconfigs = map[string]string{}
	var lines []byte
	for i, user := range []string{"admin", "kube-controller-manager", "kube-scheduler", "kwok", podFinisherUser} {
		token, err := randomToken()
		if err != nil {
			return nil, "", err
		}
		lines = fmt.Appendf(lines, "%s,%s,%d,\"system:masters\"\n", token, user, i+1)
		path := filepath.Join(cp.Dir, "kubeconfig")
		if user != "admin" {
			path = filepath.Join(cp.Dir, user+".kubeconfig")
		} else {
			cp.admin = tokenConfig(cp.APIServerURL, cp.caPEM, token)
		}
		if err := writeKubeconfig(path, cp.APIServerURL, cp.caPEM, user, token); err != nil {
			return nil, "", fmt.Errorf("write kubeconfig for %s: %w", user, err)
		}
		kubeconfigs[user] = path
	}
	tokensFile = filepath.Join(cp.Dir, "tokens.csv")
	if err := os.WriteFile(tokensFile, lines, 0o600); err != nil {
		return nil, "", err
	}
	return kubeconfigs, tokensFile, nil
}

func (cp *ControlPlane) run(opts Options, name string, args []string) (*process, error) {
	p, err := startProcess(name, filepath.Join(opts.BinDir, name), filepath.Join(cp.LogDir, name+".log"), args)
	if err != nil {
		return nil, err
	}
	cp.mu.Lock()
	cp.processes = append(cp.processes, p)
	cp.mu.Unlock()
	return p, nil
}

// AdminConfig returns a superuser client configuration. Each call returns a fresh copy.
func (cp *ControlPlane) AdminConfig() *rest.Config {
	return rest.CopyConfig(cp.admin)
}

// Stop stops every component, newest first, and removes the control plane's directory.
// It is safe to call more than once.
func (cp *ControlPlane) Stop() error {
	return cp.stop(false)
}

// StopKeepingLogs stops every component and removes everything but LogDir, for a failed run.
func (cp *ControlPlane) StopKeepingLogs() error {
	return cp.stop(true)
}

func (cp *ControlPlane) stop(keepLogs bool) error {
	cp.stopOnce.Do(func() {
		var errs []error
		cp.mu.Lock()
		close(cp.stopped)
		processes := slices.Clone(cp.processes)
		cp.mu.Unlock()
		if cp.finisher != nil {
			cp.finisher.stop()
		}
		for i := len(processes) - 1; i >= 0; i-- {
			if err := processes[i].stop(); err != nil {
				errs = append(errs, err)
			}
		}
		errs = append(errs, cp.removeFiles(keepLogs))
		cp.stopErr = errors.Join(errs...)
	})
	return cp.stopErr
}

func (cp *ControlPlane) removeFiles(keepLogs bool) error {
	if !keepLogs {
		return os.RemoveAll(cp.Dir)
	}
	entries, err := os.ReadDir(cp.Dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if path := filepath.Join(cp.Dir, e.Name()); path != cp.LogDir {
			errs = append(errs, os.RemoveAll(path))
		}
	}
	return errors.Join(errs...)
}
