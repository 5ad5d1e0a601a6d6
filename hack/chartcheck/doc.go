// Package chartcheck holds the Helm chart in charts/broker-operator to the kustomize manifests in
// deploy/: with default values the chart renders the same objects, RBAC rules, Deployment
// settings and CRD, and it passes helm lint; the CRD stays small enough for a client-side
// `kubectl apply` (crdsize_test.go); every CRD passes kube-apiserver's own validation, CEL cost
// estimate included, and the BrokerTopic rules refuse what docs/topics.md says
// (crdcel_test.go). It is a module of its own so that Helm's and
// kustomize's dependencies stay out of the operator's module graph. Run it with `make charts`.
package chartcheck
