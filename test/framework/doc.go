// Package framework starts a real local Kubernetes control plane on 127.0.0.1 for end-to-end tests
// and local runs: etcd, kube-apiserver (RBAC, static token authentication, an audit log of
// ServiceAccount requests and of every pod delete), kube-controller-manager, kube-scheduler and
// kwok, which plays the kubelet for fake Nodes so that Pods become Running and Ready with IPs.
// There are Options.FakeNodes of them (DefaultFakeNodes, 8: a BrokerCluster puts at most one
// broker on a node by default, and the tests' largest clusters have 7), named by FakeNodeNames,
// FakeNodeName first, each in one of FakeNodeZones in turn.
//
// kwok's own pod-delete stage is left out of its stage configuration: it finishes a graceful pod
// delete by name with no precondition, and so can delete the new Pod a StatefulSet made under the
// same name. The control plane finishes those deletes itself instead, as a kubelet does: grace 0
// and the Pod's UID as a precondition, as the user "pod-finisher", as fast as one kubelet per
// Node would (50 requests a second each, one worker each). kwok runs no containers, so a pod is
// finished as soon as its delete is seen; Options.PodStop gives each pod a time to stop first, as
// a broker shutting down takes.
//
// The binaries are built from Go modules by hack/controlplane/build.sh into _output/bin
// (CONTROLPLANE_BIN_DIR overrides the directory). From a program, call Start and, when done,
// ControlPlane.Stop; from a test, StartForTest stops it in the test's cleanup and keeps the
// component logs if the test failed.
//
// What a ControlPlane hands out:
//   - AdminConfig and KubeconfigPath: a superuser, for the test itself and for kubectl;
//   - ServiceAccountConfig and ServiceAccountKubeconfig: clients that hold only what RBAC grants a
//     ServiceAccount, which is how the operator is meant to run;
//   - ForbiddenRequests: every request of a ServiceAccount that RBAC refused;
//   - PodDeletes: every pod delete by any user, with its user agent, time and UID precondition.
//
// For soak tests, RestartAPIServer kills kube-apiserver and starts it again (kwok is restarted with
// it, the fake Nodes' Leases deleted so that it takes them at once), and CompactEtcd compacts etcd
// so that watches resuming from before it get 410 Gone.
// kube-controller-manager and kube-scheduler, which exit on purpose when they lose their Lease or
// find their cache corrupted, are started again whenever they exit, as the kubelet restarts static
// Pods; Restarts counts it.
//
// Pods only land on the fake Nodes if they carry FakeNodeTolerations (PlaceOnFakeNode adds them and
// FakeNodeSelector); DelayReadiness holds a Pod back from Ready for a while. AddFakeNode adds a
// fake Node with labels and taints of a test's own, outside FakeNodeSelector.
//
// StartRealNode adds a real Node, RealNodeName, to such a control plane: Debian's containerd and
// runc run its Pods' containers, the kubelet and kube-proxy (built by the same script, from
// k8s.io/kubernetes) manage them and program Services, and a CNI bridge gives each Pod an address.
// Every non-loopback address it uses (the node address RealNodeIP, the Pod and Service ranges, the
// apiserver's listener for Pods) lives in the calling process's network namespace, which must be
// one of its own with no uplink: run the test binary with go test -exec 'unshare --net --'. Then
// the test dials Pod and Service addresses directly, and a process that Pods must reach listens on
// RealNodeIP. RealNodeUnsupported says why a machine cannot run it (not root, no cgroups, the
// host's namespace), for a test to skip. Images are imported from tars (ImportImage, TagImage;
// hack/image/build.sh makes the Pod sandbox's pause image), never pulled. Outside its directory
// the node touches only cgroups under a root of its own, three sysctls the kubelet sets, and a
// few fixed directories; Stop undoes all of it, and the next start cleans up after a run that
// crashed. Only one real node can run on a machine at a time.
package framework
