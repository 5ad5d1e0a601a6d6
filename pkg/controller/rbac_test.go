package controller

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// clusterRolePath is the operator's ClusterRole, which must grant exactly what the controller uses.
const clusterRolePath = "../../deploy/rbac/cluster_role.yaml"

// permission is one (API group, resource[/subresource], verb) the controller needs.
type permission struct{ group, resource, verb string }

func (p permission) String() string { return p.group + "/" + p.resource + ":" + p.verb }

func permissionOf(a k8stesting.Action) permission {
	res := a.GetResource()
	resource := res.Resource
	if sub := a.GetSubresource(); sub != "" {
		resource += "/" + sub
	}
	return permission{group: res.Group, resource: resource, verb: a.GetVerb()}
}

// The requests are derived from running the controller: its informers, and every reconcile of a
// cluster's life under each read strategy that issues different requests, and with the admin
// API's credentials in a Secret, and with listeners whose certificates cert-manager issues. Events are sent by the
// binary's recorder and checked in cmd/broker-operator.
func TestClusterRoleGrantsExactlyWhatTheControllerUses(t *testing.T) {
	used := map[permission]bool{}
	record := func(actions []k8stesting.Action) {
		for _, a := range actions {
			used[permissionOf(a)] = true
		}
	}
	for _, tc := range []struct {
		strategy ReadStrategy
		auth     bool
		kafka    bool // an external listener and rack awareness
		certs    bool // listeners whose certificates cert-manager issues
	}{{ReadWriteback, false, false, false}, {ReadUncached, false, false, false}, {ReadWriteback, true, false, false}, {ReadWriteback, false, true, false}, {ReadWriteback, false, false, true}} {
		strategy := tc.strategy
		h := newHarness(t, harnessOptions{strategy: strategy, guards: DefaultGuards(), auth: tc.auth})
		record(append(h.kube.Actions(), h.brokers.Actions()...)) // the informers' list and watch
		h.onReconcileActions = record
		h.addStorageClass("expandable", true)
		bc := newBrokerCluster(3)
		if tc.kafka {
			bc = nodePortCluster(3)
			bc.Spec.RackAwareness = &v1alpha1.RackAwarenessSpec{}
		}
		if tc.certs {
			bc = issuerCluster(3)
			h.issueOnCreate(h.clock.Now().Add(90 * 24 * time.Hour))
		}
		if tc.auth {
			bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: testAuthSecret}
		}
		bc.Spec.Storage.StorageClassName = ptr.To("expandable")
		bc.Spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Create: true, Annotations: map[string]string{roleARN: "arn:aws:iam::1:role/a"}}
		h.bringUpCluster(bc)
		h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
			s.Replicas = 4
			s.Image = "broker:2"
			s.AdminAPI.Port = 9645
			s.ServiceAccount.Annotations[roleARN] = "arn:aws:iam::1:role/b"
		})
		h.settle(10)
		h.addClaims()
		h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Storage.Size.Add(resource.MustParse("10Gi")) })
		h.settle(5)
		if claims := h.claimPatches(); len(claims) == 0 {
			t.Fatalf("%s: the scenario's storage growth patched no claim", strategy)
		}
		tamperWithPodDisruptionBudget(t, h) // the controller puts it back
		h.settle(3)
		h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
		h.settle(20)
		if st := h.stored().Status; st.CurrentReplicas != 2 {
			t.Fatalf("%s: the scenario did not finish its scale-down: %+v", strategy, st)
		}
		// A node lost with the volume of broker 1, and its recovery.
		h.pinVolume(1, "a-node-that-is-gone")
		h.loseNode(1)
		h.cluster.SetPodVolume(1, "a new volume")
		h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
			s.NodeLossRecovery, s.DecommissionGhostBrokers = &v1alpha1.NodeLossRecoverySpec{GracePeriod: &metav1.Duration{}}, true
		})
		h.settle(10)
		if w := h.volumeWrites(); !slices.Contains(w, "delete persistentvolumeclaims/"+claimName(1)) {
			t.Fatalf("%s: the scenario did not recover the lost broker: %v", strategy, w)
		}
	}

	// A cluster moved to a pool: its seeds ConfigMap is made and moved with the brokers, and
	// the pool's StatefulSet and Service made (pools_test.go).
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), pools: []string{"blue"}})
	record(append(h.kube.Actions(), h.brokers.Actions()...))
	h.onReconcileActions = record
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas, s.Pools = 0, []v1alpha1.BrokerPool{bluePool(3)} })
	for range 20 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("pools: reconcile: %v", err)
		}
	}
	if st := h.stored().Status; st.CurrentReplicas != 0 || len(h.poolPods("blue")) != 3 {
		t.Fatalf("the pools scenario did not finish its move: %+v", st)
	}

	// Someone else's ConfigMap where a cluster's seeds go: read by name once its create is
	// refused, and refused in turn (seeds_test.go).
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: testName + "-seeds", Namespace: testNamespace}}
	h = newHarness(t, harnessOptions{pools: []string{"blue"}, kubeObjects: []runtime.Object{foreign}})
	h.onReconcileActions = record
	bc := newBrokerCluster(0)
	bc.Spec.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	h.create(bc)
	for range 3 {
		_, _ = h.reconcile() // refused: the seeds ConfigMap is another's
	}

	granted := grantedByClusterRole(t)
	for p := range used {
		if !granted[p] {
			t.Errorf("the controller sends %s, which %s does not grant", p, clusterRolePath)
		}
	}
	for p := range granted {
		if p.resource == "events" || strings.HasPrefix(p.resource, "brokertopics") || strings.HasPrefix(p.resource, "brokerusers") ||
			(p.resource == "secrets" && p.verb != "get") {
			continue // events: cmd/broker-operator checks them; BrokerTopics: pkg/topics does; BrokerUsers, their Secrets and the Secrets' metadata watch: pkg/users does
		}
		if !used[p] {
			t.Errorf("%s grants %s, which the controller never uses", clusterRolePath, p)
		}
	}
}

func grantedByClusterRole(t *testing.T) map[permission]bool {
	t.Helper()
	data, err := os.ReadFile(clusterRolePath)
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatalf("%s: %v", clusterRolePath, err)
	}
	granted := map[permission]bool{}
	for _, rule := range role.Rules {
		if len(rule.ResourceNames) > 0 || len(rule.NonResourceURLs) > 0 {
			t.Fatalf("%s: rule %+v: only plain resource rules are expected", clusterRolePath, rule)
		}
		for _, g := range rule.APIGroups {
			for _, r := range rule.Resources {
				for _, v := range rule.Verbs {
					if strings.Contains(g+r+v, "*") {
						t.Fatalf("%s: wildcard in %+v", clusterRolePath, rule)
					}
					granted[permission{group: g, resource: r, verb: v}] = true
				}
			}
		}
	}
	return granted
}

func tamperWithPodDisruptionBudget(t *testing.T, h *harness) {
	t.Helper()
	pdbs := h.kube.PolicyV1().PodDisruptionBudgets(testNamespace)
	pdb, err := pdbs.Get(h.ctx, testName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	two := intstr.FromInt32(2)
	pdb.Spec.MaxUnavailable = &two
	if _, err := pdbs.Update(h.ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncKubeInformers()
}
