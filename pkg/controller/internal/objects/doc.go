// Package objects builds the Kubernetes objects of a BrokerCluster: the broker pod template
// (podspec.go) and the node config it renders (nodeconfig.go), where the brokers may run (one per
// node and a spread over zones by default, scheduling.go), the per-broker facts recorded on pods
// once placed (placement.go), the StatefulSet, headless Service and
// PodDisruptionBudget with their hashes and ownership (resources.go), the Schema Registry's and
// HTTP Proxy's ports (httpports.go), the external listener's per-broker Services (services.go), the cert-manager Certificates of listeners with an
// issuerRef (certificate.go, unstructured, for the dynamic client), the index of a cluster's pods and Services
// (clusterindex.go), the cache of pod templates (templatecache.go), and the claim template's
// size and the founding seeds the pods were made with (claimtemplate.go), a pool's names,
// StatefulSet and Service and the focus view's pool (pools.go), and the seeds ConfigMap of a
// cluster with pools (seeds.go). The labels and annotations the operator sets are defined here.
//
// It builds and compares; it makes no call. The controller (pkg/controller/owned.go,
// pkg/controller/services.go, pkg/controller/recordplacement.go, pkg/controller/templategrowth.go, pkg/controller/certificates.go) writes what it builds. Of the controller's rooms it imports
// internal/brokerpod alone: never internal/brokers, and never internal/step.
package objects
