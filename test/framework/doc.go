// Package framework starts a real local Kubernetes control plane on 127.0.0.1 for end-to-end tests
// and local runs: etcd, kube-apiserver (RBAC, token authentication), kube-controller-manager,
// kube-scheduler and kwok, which plays the kubelet for one fake Node so that Pods become Running
// and Ready.
//
// The binaries are built from Go modules by hack/controlplane/build.sh into _output/bin. Use Start
// and ControlPlane.Stop from any program, or StartForTest from a test.
package framework
