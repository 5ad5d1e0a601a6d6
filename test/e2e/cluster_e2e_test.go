//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
)

// convergeLimit bounds each wait for a cluster to settle; scenarios take seconds when all is well.
const convergeLimit = 2 * time.Minute

// newNamespace makes a namespace for one test, deleted with the volumes made for it when the
// test ends.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns, err := env.kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = env.kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		_ = env.kube.CoreV1().PersistentVolumes().DeleteCollection(ctx, metav1.DeleteOptions{},
			metav1.ListOptions{LabelSelector: brokersim.LabelClaimNamespace + "=" + ns.Name})
	})
	return ns.Name
}

// brokerCluster is a valid BrokerCluster whose Pods land on the fake Node. Its admin port is the
// first of its simulated cluster's own ports: the operator reaches broker O at that port plus O.
func brokerCluster(ns, name string, replicas int32) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas:     replicas,
			Image:        "registry.invalid/broker:1",
			Storage:      v1alpha1.StorageSpec{Size: resource.MustParse("1Gi")},
			AdminAPI:     v1alpha1.AdminAPISpec{Port: int32(env.sim.Cluster(ns, name).AdminPort())},
			Tolerations:  framework.FakeNodeTolerations(),
			NodeSelector: framework.FakeNodeSelector(),
		},
	}
}

// createCluster creates a BrokerCluster whose brokers drain for drainTime when decommissioned.
func createCluster(t *testing.T, ns, name string, replicas int32, drainTime time.Duration) {
	t.Helper()
	env.sim.Cluster(ns, name).SetDrainTime(drainTime)
	if _, err := env.brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), brokerCluster(ns, name, replicas), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BrokerCluster %s/%s: %v", ns, name, err)
	}
}

// scale changes spec.replicas the way users do: kubectl scale, through the scale subresource.
func scale(t *testing.T, ns, name string, replicas int) {
	t.Helper()
	if _, err := brokersim.Kubectl(t.Context(), env.cp.KubeconfigPath, "-n", ns, "scale", "bc/"+name, "--replicas="+strconv.Itoa(replicas)); err != nil {
		t.Fatal(err)
	}
}

// awaitConverged waits until the cluster is steady at target brokers: the operator has observed
// the spec, status says target current and ready with no decommission, exactly the Pods 0 to
// target-1 run a broker, and exactly target active brokers run in them.
func awaitConverged(t *testing.T, ns, name string, target int32) *v1alpha1.BrokerCluster {
	t.Helper()
	var (
		last string
		bc   *v1alpha1.BrokerCluster
	)
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		var err error
		bc, err = env.brokers.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = convergenceProblem(bc, target)
		return last == "", nil
	})
	if err != nil {
		t.Fatalf("BrokerCluster %s/%s did not settle at %d brokers within %s: %s", ns, name, target, convergeLimit, last)
	}
	return bc
}

func convergenceProblem(bc *v1alpha1.BrokerCluster, target int32) string {
	st := bc.Status
	if bc.Spec.Replicas != target || st.ObservedGeneration != bc.Generation || st.CurrentReplicas != target ||
		st.ReadyReplicas != target || st.DecommissioningBroker != nil {
		return fmt.Sprintf("spec %d, generation %d observed %d, current %d, ready %d, decommissioning %s",
			bc.Spec.Replicas, bc.Generation, st.ObservedGeneration, st.CurrentReplicas, st.ReadyReplicas, brokerString(st.DecommissioningBroker))
	}
	if !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) {
		return fmt.Sprintf("condition Ready is not True: %v", meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady))
	}
	running := env.pods.Running(bc.Namespace, bc.Name)
	if want := ordinals(int(target)); !slices.Equal(running, want) {
		return fmt.Sprintf("pods running brokers %v, want %v", running, want)
	}
	active := 0
	for _, b := range env.sim.Cluster(bc.Namespace, bc.Name).Brokers() {
		if b.PodRunning && b.Status == admin.MembershipActive {
			active++
		}
	}
	if active != int(target) {
		return fmt.Sprintf("%d active brokers, want %d", active, target)
	}
	return ""
}

// awaitDraining waits until status names a broker being decommissioned and the simulator has
// it draining, and returns its node ID.
func awaitDraining(t *testing.T, ns, name string) int32 {
	t.Helper()
	var (
		id   int32
		last string
	)
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		bc, err := env.brokers.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if bc.Status.DecommissioningBroker == nil {
			last = "status names no broker being decommissioned"
			return false, nil
		}
		id = *bc.Status.DecommissioningBroker
		status := brokerStatus(ns, name, int(id))
		last = fmt.Sprintf("broker %d is %q in the simulator", id, status)
		return status == admin.MembershipDraining, nil
	})
	if err != nil {
		t.Fatalf("no broker of %s/%s started draining within %s: %s", ns, name, convergeLimit, last)
	}
	return id
}

func brokerStatus(ns, name string, nodeID int) admin.MembershipStatus {
	for _, b := range env.sim.Cluster(ns, name).Brokers() {
		if b.NodeID == nodeID {
			return b.Status
		}
	}
	return ""
}

// nodeIDs maps pod ordinals to the node IDs of the brokers they run now.
func nodeIDs(t *testing.T, ns, name string, count int) []int {
	t.Helper()
	ids := make([]int, count)
	for o := range count {
		id, ok := env.sim.Cluster(ns, name).NodeID(o)
		if !ok {
			t.Fatalf("pod %s-%d runs no broker", name, o)
		}
		ids[o] = id
	}
	return ids
}

// adminCalls returns the node IDs of the accepted admin calls of one kind ("decommission" or
// "recommission") that reached a cluster, in order.
func adminCalls(ns, name, kind string) []int {
	var ids []int
	for _, c := range env.sim.Cluster(ns, name).Calls() {
		if c.Method == http.MethodPut && strings.HasSuffix(c.Path, "/"+kind) && c.Status == http.StatusOK {
			ids = append(ids, c.NodeID)
		}
	}
	return ids
}

// checkBrokersSafe fails the test if the operator decommissioned a broker that was not active,
// or if a broker's Pod went while the broker was still a member of this cluster.
func checkBrokersSafe(t *testing.T, ns, name string) {
	t.Helper()
	prefix := ns + "/" + name + ":"
	for _, d := range env.sim.DoubleDecommissions() {
		if strings.HasPrefix(d, prefix) {
			t.Errorf("decommissioned twice: %s", d)
		}
	}
	for _, l := range env.sim.LeftBeforeDecommission() {
		if strings.HasPrefix(l, prefix) {
			t.Errorf("pod went before its broker left: %s", l)
		}
	}
}

// checkNoForbidden fails the test if RBAC has refused the operator anything so far.
func checkNoForbidden(t *testing.T) {
	t.Helper()
	if err := env.checkNoForbiddenRequests(); err != nil {
		t.Error(err)
	}
}

// statusSteps records the distinct (currentReplicas, decommissioningBroker) pairs a
// BrokerCluster's status goes through, as its watch delivers them.
type statusSteps struct {
	mu    sync.Mutex
	steps []string
}

func recordStatusSteps(t *testing.T, ns, name string) *statusSteps {
	t.Helper()
	s := &statusSteps{}
	for _, bc := range watchBrokerCluster(t, ns, name, s.add) {
		s.add(&bc)
	}
	return s
}

// watchBrokerCluster lists the BrokerCluster ns/name and passes every version its watch then
// delivers to each, until the test ends. It returns what the list held; each sees only the
// watch's versions.
func watchBrokerCluster(t *testing.T, ns, name string, each func(*v1alpha1.BrokerCluster)) []v1alpha1.BrokerCluster {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	client := env.brokers.BrokersV1alpha1().BrokerClusters(ns)
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	initial, err := client.List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	open := func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		o.FieldSelector = selector
		return client.Watch(ctx, o)
	}
	watchFrom(t, ctx, cancel, initial.ResourceVersion, open, func(ev watch.Event) {
		if bc, ok := ev.Object.(*v1alpha1.BrokerCluster); ok {
			each(bc)
		}
	})
	return initial.Items
}

func (s *statusSteps) add(bc *v1alpha1.BrokerCluster) {
	step := fmt.Sprintf("current=%d decommissioning=%s", bc.Status.CurrentReplicas, brokerString(bc.Status.DecommissioningBroker))
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.steps) == 0 || s.steps[len(s.steps)-1] != step {
		s.steps = append(s.steps, step)
	}
}

// since returns the steps from the first one equal to from.
func (s *statusSteps) since(from string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.steps, from); i >= 0 {
		return slices.Clone(s.steps[i:])
	}
	return slices.Clone(s.steps)
}

func brokerString(id *int32) string {
	if id == nil {
		return "none"
	}
	return strconv.Itoa(int(*id))
}

func ordinals(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
