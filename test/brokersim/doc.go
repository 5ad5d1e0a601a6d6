// Package brokersim runs simulated brokers (pkg/admin/admintest) for the BrokerClusters of a real
// control plane (test/framework), for the e2e tests and the local run.
//
//   - PodSync watches the operator's broker Pods and tells the simulator which ones run a broker:
//     a broker joins when its Pod becomes Ready, and leaves when its Pod goes because the
//     StatefulSet shrank (a Pod that goes while its ordinal is still wanted is merely down).
//   - VolumeBinder stands in for a volume provisioner: the local control plane has none, and the
//     scheduler keeps a Pod whose claim is unbound Pending. It makes a PersistentVolume, bound in
//     advance, for each claim of the operator's StatefulSets, and deletes it once the claim is
//     gone (Released), as a dynamic provisioner's volumes with reclaimPolicy Delete are.
//   - Install applies the namespace, CRD and RBAC of deploy/ with kubectl.
package brokersim
