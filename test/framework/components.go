package framework

import (
	"fmt"
	"path/filepath"
	"strconv"
)

// Each component's command line. The flags were chosen for a single-node loopback cluster.

func etcdArgs(dataDir string, clientPort, peerPort int) []string {
	client := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peer := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	return []string{
		"--name=local",
		"--data-dir=" + dataDir,
		// The data is thrown away after the run; fsync would only slow every write.
		"--unsafe-no-fsync",
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=local=" + peer,
		"--log-level=warn",
	}
}

func apiserverArgs(dir string, p *pki, etcdPort, securePort int, tokensFile string, audit auditFiles) []string {
	return []string{
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(etcdPort),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(securePort),
		// Loopback is refused as an advertise address unless the endpoint reconciler is off.
		"--endpoint-reconciler-type=none",
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file=" + p.servingCertFile,
		"--tls-private-key-file=" + p.servingKeyFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.saPublicKeyFile,
		"--service-account-signing-key-file=" + p.saSigningFile,
		"--service-cluster-ip-range=10.96.0.0/24",
		"--token-auth-file=" + tokensFile,
		"--authorization-mode=RBAC",
		// Pods are not made to wait for the namespace's default ServiceAccount; kwok runs no containers.
		"--disable-admission-plugins=ServiceAccount",
		"--audit-policy-file=" + audit.policy,
		"--audit-log-path=" + audit.log,
		"--audit-log-format=json",
		// Never rotated: the tests read the one file, and the default rotation at 100 MB moved
		// the first 40 minutes of a full soak's log out of its sight.
		"--audit-log-maxsize=0",
	}
}

func controllerManagerArgs(dir, kubeconfig string, p *pki, port int) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(dir, "controller-manager-certs"),
		"--leader-elect=false",
		"--service-account-private-key-file=" + p.saSigningFile,
		"--root-ca-file=" + p.caFile,
		// The default client limit (20 requests a second, bursts of 30) is for a small cluster:
		// binding claims, making and deleting pods, endpoint slices and disruption budgets of
		// hundreds of brokers at once queue behind it, so the soak measured the limiter rather
		// than the operator. Large clusters raise it the same way.
		"--kube-api-qps=200",
		"--kube-api-burst=400",
	}
}

func schedulerArgs(dir, kubeconfig string, port int) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(dir, "scheduler-certs"),
		"--leader-elect=false",
	}
}

func kwokArgs(kubeconfig, stages string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--config=" + stages,
		"--manage-all-nodes=false",
		fmt.Sprintf("--manage-nodes-with-annotation-selector=%s=%s", kwokNodeAnnotation, kwokNodeValue),
		// Without a lease duration the node controller marks the node Unknown and Pods NotReady.
		"--node-lease-duration-seconds=40",
		"--cidr=10.244.0.0/16",
		"--node-ip=10.1.0.1",
	}
}
