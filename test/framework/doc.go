// Package framework starts a real local Kubernetes control plane on 127.0.0.1 for end-to-end tests
// and local runs: etcd, kube-apiserver (RBAC, static token authentication, an audit log of
// ServiceAccount requests), kube-controller-manager, kube-scheduler and kwok, which plays the
// kubelet for one fake Node so that Pods become Running and Ready with IPs.
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
//   - ForbiddenRequests: every request of a ServiceAccount that RBAC refused.
//
// Pods only land on the fake Node if they carry FakeNodeTolerations (PlaceOnFakeNode adds them and
// FakeNodeSelector); DelayReadiness holds a Pod back from Ready for a while.
package framework
