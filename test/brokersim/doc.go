// Package brokersim runs simulated brokers (pkg/admin/admintest) for the BrokerClusters of a real
// control plane (test/framework), for the e2e tests and the local run.
//
//   - PodSync watches the operator's broker Pods and tells the simulator which ones run a broker:
//     a broker joins when its Pod becomes Ready, and leaves when its Pod goes because the
//     StatefulSet shrank (a Pod that goes while its ordinal is still wanted is merely down). It
//     does so for every StatefulSet of a cluster: the default pool's Pods <cluster>-<ordinal>,
//     and each named pool's <cluster>-<pool>-<ordinal>, labelled broker-operator.dev/pool, whose
//     brokers join that pool of the simulated cluster (admintest.Cluster.Pool). A Pod is taken
//     by its pool label and an exact <set>-<ordinal> name (PodPool), so <cluster>-blue-0 is never
//     an ordinal of <cluster>. Running is the default pool's; RunningPools is every pool's.
//     Converged judges a cluster with pools pool by pool, from status.pools, the Pods and the
//     brokers.
//   - VolumeBinder stands in for a volume provisioner: the local control plane has none, and the
//     scheduler keeps a Pod whose claim is unbound Pending. It makes a PersistentVolume, bound in
//     advance, for each claim of the operator's StatefulSets, and deletes it once the claim is
//     gone (Released), as a dynamic provisioner's volumes with reclaimPolicy Delete are.
//   - Install applies the namespace, CRD and RBAC of deploy/ with kubectl.
//
// The simulator's address templates name only the pools that exist when they are made: a test
// that moves brokers into a pool declares it (admintest.Cluster.Pool) before it renders the
// template its operator is started with; PodSync makes a pool only when its first Pod is Ready.
package brokersim
