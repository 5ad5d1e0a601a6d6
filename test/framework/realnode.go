package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// RealNodeOptions configure StartRealNode. The zero value is usable.
type RealNodeOptions struct {
	// Options are the control plane's; BinDir must also hold kubelet and kube-proxy.
	Options
	// PauseImage is the Pod sandbox image's tar (hack/image/build.sh pause). Default:
	// image/pause.tar beside BinDir.
	PauseImage string
	// Images are further image tars to import into the node's containerd before it starts.
	Images []string
}

// RealNode is a control plane with one real Node: containerd runs its Pods' containers through
// runc, the kubelet manages them and kube-proxy programs Services. The fake kwok Node is there as
// well, for Pods that need not run. Everything lives in the calling process's network namespace,
// which must be its own (RealNodeUnsupported). Stop it when done.
type RealNode struct {
	*ControlPlane

	state      *hostState
	processes  map[string]*process
	order      []string // start order
	containerd string   // socket
	stopOnce   sync.Once
	stopErr    error
}

// StartRealNode starts containerd, etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
// kwok, the kubelet and kube-proxy, and returns once every Node is Ready and schedulable and
// kube-proxy is healthy. It first cleans up after earlier runs that crashed.
func StartRealNode(ctx context.Context, opts RealNodeOptions) (*RealNode, error) {
	if reason := RealNodeUnsupported(); reason != "" {
		return nil, errors.New(reason)
	}
	base, err := opts.Options.withDefaults()
	if err != nil {
		return nil, err
	}
	opts.Options = base
	if opts.PauseImage == "" {
		opts.PauseImage = filepath.Join(filepath.Dir(opts.BinDir), "image", "pause.tar")
	}
	var missing []string
	for _, b := range []string{"kubelet", "kube-proxy"} {
		if _, err := os.Stat(filepath.Join(opts.BinDir, b)); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("real node binaries missing from %s: %s; build them with %s %s", opts.BinDir, strings.Join(missing, ", "), BuildCommand, strings.Join(missing, " "))
	}
	for _, tar := range append([]string{opts.PauseImage}, opts.Images...) {
		if _, err := os.Stat(tar); err != nil {
			return nil, fmt.Errorf("image tar %s: %w (hack/image/build.sh builds the operator and pause images)", tar, err)
		}
	}
	if err := checkTools(); err != nil {
		return nil, err
	}
	parent := opts.TempDir
	if parent == "" {
		parent = os.TempDir()
	}
	if err := cleanStaleRuns(parent, opts.Logf); err != nil {
		return nil, fmt.Errorf("clean up after an earlier run: %w", err)
	}
	dir, err := os.MkdirTemp(parent, "realnode-")
	if err != nil {
		return nil, err
	}
	n := &RealNode{
		ControlPlane: &ControlPlane{Dir: dir, LogDir: filepath.Join(dir, "logs"), logf: opts.Logf, stopped: make(chan struct{})},
		processes:    map[string]*process{},
		containerd:   containerdSocket(dir),
		state:        &hostState{},
	}
	if n.state, err = recordHostState(dir); err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	started := time.Now()
	if err := n.start(ctx, opts); err != nil {
		stopErr := n.stop(true)
		return nil, errors.Join(fmt.Errorf("start real node (logs kept in %s): %w", n.LogDir, err), stopErr)
	}
	n.logf("real node ready in %s: %s, node %s at %s (kubeconfig %s)", time.Since(started).Round(time.Millisecond), n.APIServerURL, RealNodeName, RealNodeIP, n.KubeconfigPath)
	return n, nil
}

func (n *RealNode) start(ctx context.Context, opts RealNodeOptions) error {
	dir := n.Dir
	for _, d := range []string{n.LogDir, filepath.Join(dir, "cni", "net.d"), podLogsDir(dir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := setUpNetwork(); err != nil {
		return err
	}
	if err := makeCgroupRoot(); err != nil {
		return fmt.Errorf("make the cgroup root: %w", err)
	}
	ports, err := freePorts(5)
	if err != nil {
		return err
	}
	etcdClient, etcdPeer, apiPort, kcmPort, schedulerPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	n.APIServerURL = "https://127.0.0.1:" + strconv.Itoa(apiPort)

	p, err := writePKI(dir)
	if err != nil {
		return fmt.Errorf("generate keys: %w", err)
	}
	r, err := writeRealNodePKI(dir, p)
	if err != nil {
		return err
	}
	n.caPEM = p.caCertPEM
	kubeconfigs, tokensFile, err := n.writeCredentials()
	if err != nil {
		return err
	}
	if err := n.writeNodeCredentials(kubeconfigs, tokensFile); err != nil {
		return err
	}
	n.KubeconfigPath = kubeconfigs["admin"]
	if n.audit, err = writeAuditPolicy(dir); err != nil {
		return err
	}
	files := map[string]func() ([]byte, error){
		"containerd.toml":                func() ([]byte, error) { return []byte(containerdConfig(dir)), nil },
		"cni/net.d/10-realnode.conflist": func() ([]byte, error) { return cniConfig(dir) },
		"kubelet.json":                   func() ([]byte, error) { return kubeletConfig(dir, p, r) },
		"kube-proxy.json":                func() ([]byte, error) { return kubeProxyConfig(kubeconfigs["kube-proxy"]) },
	}
	for name, content := range files {
		data, err := content()
		if err := writeJSON(filepath.Join(dir, name), data, err); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}

	step := time.Now()
	containerd, err := n.run(opts.Options, "containerd", "containerd", []string{"--config=" + filepath.Join(dir, "containerd.toml")})
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, []*process{containerd}, "containerd", func(ctx context.Context) error {
		_, err := n.ctr(ctx, "version")
		return err
	}); err != nil {
		return err
	}
	for _, tar := range append([]string{opts.PauseImage}, opts.Images...) {
		if err := n.ImportImage(ctx, tar); err != nil {
			return err
		}
	}
	n.logf("containerd ready, images imported in %s", time.Since(step).Round(time.Millisecond))

	step = time.Now()
	etcd, err := n.run(opts.Options, "etcd", "", etcdArgs(filepath.Join(dir, "etcd-data"), etcdClient, etcdPeer))
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, n.all(), "etcd /health", plainHTTPCheck("http://127.0.0.1:"+strconv.Itoa(etcdClient)+"/health")); err != nil {
		return err
	}
	_ = etcd
	if _, err := n.run(opts.Options, "kube-apiserver", "", realNodeAPIServerArgs(apiserverArgs(dir, p, etcdClient, apiPort, tokensFile, n.audit), p, r)); err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(n.admin)
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, n.all(), "kube-apiserver /readyz", apiserverReadyCheck(client)); err != nil {
		return err
	}
	n.logf("etcd and kube-apiserver ready in %s", time.Since(step).Round(time.Millisecond))

	step = time.Now()
	if n.fakeNodes, err = createFakeNodes(ctx, client, opts.FakeNodes); err != nil {
		return err
	}
	stages, err := writeKwokStages(dir, opts.KwokStages)
	if err != nil {
		return err
	}
	components := []struct {
		name string
		args []string
	}{
		{"kube-controller-manager", controllerManagerArgs(dir, kubeconfigs["kube-controller-manager"], p, kcmPort)},
		{"kube-scheduler", schedulerArgs(dir, kubeconfigs["kube-scheduler"], schedulerPort)},
		{"kwok", kwokArgs(kubeconfigs["kwok"], stages)},
		{"kubelet", kubeletArgs(dir, filepath.Join(dir, "kubelet.json"), kubeconfigs["kubelet"])},
		{"kube-proxy", []string{"--config=" + filepath.Join(dir, "kube-proxy.json")}},
	}
	for _, c := range components {
		if _, err := n.run(opts.Options, c.name, "", c.args); err != nil {
			return err
		}
	}
	if n.finisher, err = startPodFinisherFrom(kubeconfigs[podFinisherUser], nil, n.fakeNodes...); err != nil {
		return err
	}
	checks := []struct {
		what  string
		check func(context.Context) error
	}{
		{"kube-controller-manager /healthz", localTLSCheck(kcmPort, "/healthz")},
		{"kube-scheduler /healthz", localTLSCheck(schedulerPort, "/healthz")},
		{"kubelet /healthz", plainHTTPCheck("http://127.0.0.1:" + strconv.Itoa(kubeletHealthzPort) + "/healthz")},
		{"kube-proxy /healthz", plainHTTPCheck("http://" + kubeProxyHealthz + "/healthz")},
		{"fake nodes schedulable", nodeSchedulableCheck(client, n.fakeNodes)},
		{"real node schedulable", realNodeSchedulableCheck(client)},
		{"the default ServiceAccount", func(ctx context.Context) error {
			_, err := client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
			return err
		}},
	}
	for _, c := range checks {
		if err := waitHealthy(ctx, n.all(), c.what, c.check); err != nil {
			return err
		}
	}
	n.logf("controller-manager, scheduler, kwok, kubelet and kube-proxy ready in %s", time.Since(step).Round(time.Millisecond))
	return nil
}

// writeNodeCredentials adds the kubelet, which authenticates as its Node (so the Node authorizer
// and NodeRestriction apply to it), and kube-proxy.
func (n *RealNode) writeNodeCredentials(kubeconfigs map[string]string, tokensFile string) error {
	f, err := os.OpenFile(tokensFile, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	users := []struct{ name, user, groups string }{
		{"kubelet", "system:node:" + RealNodeName, "system:nodes"},
		{"kube-proxy", "kube-proxy", "system:masters"},
	}
	for i, u := range users {
		token, err := randomToken()
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(f, "%s,%s,%d,%q\n", token, u.user, 100+i, u.groups); err != nil {
			return err
		}
		path := filepath.Join(n.Dir, u.name+".kubeconfig")
		if err := writeKubeconfig(path, n.APIServerURL, n.caPEM, u.user, token); err != nil {
			return err
		}
		kubeconfigs[u.name] = path
	}
	return f.Close()
}

// run starts a component; binary is looked up on PATH if set, else taken from BinDir.
func (n *RealNode) run(opts Options, name, binary string, args []string) (*process, error) {
	path := filepath.Join(opts.BinDir, name)
	if binary != "" {
		var err error
		if path, err = exec.LookPath(binary); err != nil {
			return nil, err
		}
	}
	p, err := startProcess(name, path, filepath.Join(n.LogDir, name+".log"), args)
	if err != nil {
		return nil, err
	}
	n.processes[name] = p
	n.order = append(n.order, name)
	return p, nil
}

func (n *RealNode) all() []*process {
	var ps []*process
	for _, name := range n.order {
		ps = append(ps, n.processes[name])
	}
	return ps
}

// realNodeSchedulableCheck passes once the kubelet reports the Node Ready and the node lifecycle
// controller has lifted the not-ready taint.
func realNodeSchedulableCheck(client kubernetes.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		node, err := client.CoreV1().Nodes().Get(ctx, RealNodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !nodeReady(node) {
			return fmt.Errorf("node %s is not Ready yet", RealNodeName)
		}
		if len(node.Spec.Taints) > 0 {
			return fmt.Errorf("node %s still has taint %s", RealNodeName, node.Spec.Taints[0].ToString())
		}
		return nil
	}
}

// ctr runs containerd's client against the node's containerd, in the Kubernetes namespace.
func (n *RealNode) ctr(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "ctr", append([]string{"--address", n.containerd, "--namespace", "k8s.io"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ctr %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// ImportImage imports an image tar (OCI layout or docker-archive) into the node's containerd,
// under the name the tar carries. Pods use it with imagePullPolicy IfNotPresent or Never: nothing
// is ever pulled.
func (n *RealNode) ImportImage(ctx context.Context, tar string) error {
	_, err := n.ctr(ctx, "images", "import", tar)
	return err
}

// TagImage gives an imported image another name, as a new release of it would have.
func (n *RealNode) TagImage(ctx context.Context, source, target string) error {
	_, err := n.ctr(ctx, "images", "tag", "--force", source, target)
	return err
}

// Images lists the names of the images the node has.
func (n *RealNode) Images(ctx context.Context) ([]string, error) {
	out, err := n.ctr(ctx, "images", "list", "--quiet")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// Stop stops the node and the control plane and removes everything the run made outside its
// directory: containers, mounts, cgroups, the kubelet's sysctls and fixed directories. The network
// namespace goes with its last process. It is safe to call more than once.
func (n *RealNode) Stop() error { return n.stop(false) }

// StopKeepingLogs is Stop, keeping LogDir for a failed run.
func (n *RealNode) StopKeepingLogs() error { return n.stop(true) }

func (n *RealNode) stop(keepLogs bool) error {
	n.stopOnce.Do(func() {
		var errs []error
		// No controller may re-create the Pods while they go; then the kubelet tears them down.
		if p := n.processes["kube-controller-manager"]; p != nil {
			errs = append(errs, p.stop())
		}
		if n.processes["kubelet"] != nil && n.admin != nil {
			errs = append(errs, n.deleteAllPods())
		}
		if n.finisher != nil {
			n.finisher.stop()
		}
		// The apiserver's clients go first, together, then the apiserver, etcd and containerd:
		// an apiserver with clients still attached waits for them and outlasts its grace.
		for _, group := range [][]string{{"kube-proxy", "kubelet", "kwok", "kube-scheduler"}, {"kube-apiserver"}, {"etcd"}, {"containerd"}} {
			errs = append(errs, n.stopAll(group))
		}
		errs = append(errs, cleanRun(n.Dir, n.state, keepLogs))
		n.stopErr = errors.Join(errs...)
	})
	return n.stopErr
}

// stopAll stops the named components that were started, at once.
func (n *RealNode) stopAll(names []string) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, name := range names {
		p := n.processes[name]
		if p == nil {
			continue
		}
		wg.Go(func() {
			err := p.stop()
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// deleteAllPods force-deletes every Pod and waits until the kubelet has stopped the real node's
// containers (their shims are gone).
func (n *RealNode) deleteAllPods() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := kubernetes.NewForConfig(n.admin)
	if err != nil {
		return err
	}
	zero := int64(0)
	namespaces, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list namespaces to delete their Pods: %w", err)
	}
	for _, ns := range namespaces.Items {
		err := client.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{FieldSelector: "spec.nodeName=" + RealNodeName})
		if err != nil {
			return fmt.Errorf("delete the Pods of %s: %w", ns.Name, err)
		}
	}
	return waitHealthy(ctx, nil, "the real node's containers to stop", func(ctx context.Context) error {
		out, err := n.ctr(ctx, "tasks", "list", "--quiet")
		if err != nil {
			return err
		}
		if tasks := strings.Fields(out); len(tasks) > 0 {
			return fmt.Errorf("%d containers still run", len(tasks))
		}
		return nil
	})
}

// ContainerPID returns the host PID of a running container's main process. containerID is as a
// Pod's status reports it ("containerd://<id>").
func (n *RealNode) ContainerPID(ctx context.Context, containerID string) (int, error) {
	id := strings.TrimPrefix(containerID, "containerd://")
	out, err := n.ctr(ctx, "tasks", "list")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(out, "\n") {
		// TASK PID STATUS
		if f := strings.Fields(line); len(f) >= 2 && f[0] == id {
			return strconv.Atoi(f[1])
		}
	}
	return 0, fmt.Errorf("container %s runs no task", id)
}
