package framework

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The real node's addresses. They exist only inside the test's own network namespace, which has no
// uplink: the node address sits on an empty bridge, the Pods on a bridge of their own.
const (
	// RealNodeName is the real Node's name.
	RealNodeName = "realnode"
	// RealNodeIP is the node address: the kubelet serves on it, the apiserver advertises it to
	// Pods, and a test process that Pods must reach (a simulator) listens on it.
	RealNodeIP = "10.245.0.1"

	kubernetesServiceIP = "10.96.0.1"    // the first address of apiserverArgs' service range
	serviceCIDR         = "10.96.0.0/24" // as in apiserverArgs
	realPodSubnet       = "10.246.0.0/24"
	realPodCIDR         = "10.246.0.0/16"
	nodeBridge          = "rnhost0" // holds the node address
	podBridge           = "rn0"
	// realNodeCgroupRoot keeps every cgroup the kubelet makes under one directory of our own.
	realNodeCgroupRoot = "/brokerop-node-test"
	// PauseImageName is the Pod sandbox image; hack/image/build.sh pause writes its tar.
	PauseImageName = "localhost/realnode/pause:1"

	kubeletHealthzPort = 10248
	kubeProxyHealthz   = "127.0.0.1:10256"
)

// realNodeAPIServerArgs are apiserverArgs changed for a node that runs Pods: the apiserver listens
// on every address of the namespace (its loopback and the node address) and advertises the node
// address, so the kubernetes Service leads Pods to it; ServiceAccount admission mounts tokens; the
// kubelet is reached by its InternalIP with a certificate of ours.
func realNodeAPIServerArgs(base []string, p *pki, r *realNodePKI) []string {
	drop := []string{"--bind-address=", "--advertise-address=", "--endpoint-reconciler-type=", "--disable-admission-plugins=", "--authorization-mode="}
	args := slices.DeleteFunc(slices.Clone(base), func(a string) bool {
		return slices.ContainsFunc(drop, func(prefix string) bool { return strings.HasPrefix(a, prefix) })
	})
	return append(args,
		"--bind-address=0.0.0.0",
		"--advertise-address="+RealNodeIP,
		"--client-ca-file="+p.caFile,
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--kubelet-client-certificate="+r.kubeletClientCertFile,
		"--kubelet-client-key="+r.kubeletClientKeyFile,
		"--kubelet-certificate-authority="+p.caFile,
		"--kubelet-preferred-address-types=InternalIP",
	)
}

// containerdConfig is containerd 1.6's configuration (Debian 12's package): every path under dir,
// the local pause image, and restrict_oom_score_adj, without which runc fails every sandbox on a
// host whose root lacks CAP_SYS_RESOURCE.
func containerdConfig(dir string) string {
	return fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.opt"]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[4]q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[5]q
  disable_apparmor = true
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = %[6]q
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[7]q
    conf_dir = %[8]q
`,
		filepath.Join(dir, "containerd", "root"),
		filepath.Join(dir, "containerd", "state"),
		containerdSocket(dir),
		containerdSocket(dir)+".ttrpc",
		PauseImageName,
		filepath.Join(dir, "runc"),
		cniBinDir,
		filepath.Join(dir, "cni", "net.d"),
	)
}

func containerdSocket(dir string) string { return filepath.Join(dir, "containerd", "containerd.sock") }

// cniBinDir is where Debian's containernetworking-plugins installs the plugins.
const cniBinDir = "/usr/lib/cni"

// cniConfig is one bridge for the Pods. Its routes lead only to other Pods, Services and the node
// address: there is no default route, so nothing a Pod sends can leave the namespace.
func cniConfig(dir string) ([]byte, error) {
	routes := []map[string]string{{"dst": realPodCIDR}, {"dst": serviceCIDR}, {"dst": RealNodeIP + "/32"}}
	return json.MarshalIndent(map[string]any{
		"cniVersion": "1.0.0",
		"name":       "realnode",
		"plugins": []any{map[string]any{
			"type":        "bridge",
			"bridge":      podBridge,
			"isGateway":   true,
			"ipMasq":      false,
			"hairpinMode": true,
			"ipam": map[string]any{
				"type":    "host-local",
				"dataDir": filepath.Join(dir, "cni", "ipam"),
				"ranges":  [][]map[string]string{{{"subnet": realPodSubnet}}},
				"routes":  routes,
			},
		}},
	}, "", "  ")
}

// kubeletConfig is the KubeletConfiguration. Cgroups go under realNodeCgroupRoot; the kubelet
// serves on the node address with a certificate of ours and trusts only the cluster CA; image
// garbage collection and evictions are off, so a full shared disk neither removes the imported
// images nor evicts the Pods under test.
func kubeletConfig(dir string, p *pki, r *realNodePKI) ([]byte, error) {
	return json.MarshalIndent(map[string]any{
		"apiVersion":               "kubelet.config.k8s.io/v1beta1",
		"kind":                     "KubeletConfiguration",
		"failCgroupV1":             false,
		"cgroupDriver":             "cgroupfs",
		"cgroupRoot":               realNodeCgroupRoot,
		"containerRuntimeEndpoint": "unix://" + containerdSocket(dir),
		"address":                  RealNodeIP,
		"port":                     10250,
		"readOnlyPort":             0,
		"healthzBindAddress":       "127.0.0.1",
		"healthzPort":              kubeletHealthzPort,
		"tlsCertFile":              r.kubeletCertFile,
		"tlsPrivateKeyFile":        r.kubeletKeyFile,
		"authentication": map[string]any{
			"anonymous": map[string]any{"enabled": false},
			"webhook":   map[string]any{"enabled": false},
			"x509":      map[string]any{"clientCAFile": p.caFile},
		},
		"authorization":               map[string]any{"mode": "AlwaysAllow"},
		"podLogsDir":                  podLogsDir(dir),
		"failSwapOn":                  false,
		"resolvConf":                  "",
		"imageGCHighThresholdPercent": 100,
		"imageGCLowThresholdPercent":  99,
		"evictionHard":                map[string]string{"memory.available": "0%", "nodefs.available": "0%", "imagefs.available": "0%", "nodefs.inodesFree": "0%"},
		"registerNode":                true,
	}, "", "  ")
}

// podLogsDir is inside the log directory, so a failed run keeps the containers' logs too.
func podLogsDir(dir string) string { return filepath.Join(dir, "logs", "pods") }

func kubeletArgs(dir, config, kubeconfig string) []string {
	return []string{
		"--config=" + config,
		"--kubeconfig=" + kubeconfig,
		"--root-dir=" + filepath.Join(dir, "kubelet"),
		"--cert-dir=" + filepath.Join(dir, "kubelet-certs"),
		"--hostname-override=" + RealNodeName,
		"--node-ip=" + RealNodeIP,
	}
}

// kubeProxyConfig runs kube-proxy in iptables mode inside the namespace. Its conntrack settings
// stop it from changing the host's global conntrack table size.
func kubeProxyConfig(kubeconfig string) ([]byte, error) {
	return json.MarshalIndent(map[string]any{
		"apiVersion":         "kubeproxy.config.k8s.io/v1alpha1",
		"kind":               "KubeProxyConfiguration",
		"clientConnection":   map[string]any{"kubeconfig": kubeconfig},
		"mode":               "iptables",
		"clusterCIDR":        realPodCIDR,
		"hostnameOverride":   RealNodeName,
		"healthzBindAddress": kubeProxyHealthz,
		"metricsBindAddress": "127.0.0.1:10249",
		"nodePortAddresses":  []string{RealNodeIP + "/32"},
		"conntrack":          map[string]any{"maxPerCore": 0, "min": 0, "tcpEstablishedTimeout": "0s", "tcpCloseWaitTimeout": "0s"},
		"iptables":           map[string]any{"localhostNodePorts": false},
	}, "", "  ")
}

func writeJSON(path string, data []byte, err error) error {
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
