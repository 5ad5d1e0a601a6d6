package brokersim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// poolPod is a broker Pod of pool of the test cluster, named <cluster>-<pool>-<ordinal>.
func poolPod(pool string, ordinal int, ready bool) *corev1.Pod {
	p := brokerPod(ordinal, ready)
	p.Name = fmt.Sprintf("%s-%s-%d", testCluster, pool, ordinal)
	p.Labels[v1alpha1.LabelPool] = pool
	return p
}

func poolStatefulSet(pool string, replicas int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: testCluster + "-" + pool},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
	}
}

// awaitPools waits for PodSync to report exactly want, pool by pool.
func awaitPools(t *testing.T, s *PodSync, want map[string][]int) {
	t.Helper()
	deadline := time.After(reportLimit)
	for {
		changed := s.Changes()
		got := s.RunningPools(testNS, testCluster)
		if maps.EqualFunc(got, want, slices.Equal[[]int]) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("running brokers by pool %v, want %v", got, want)
		}
	}
}

// Each pool's Ready Pods join in their own pool: example-0 and example-blue-0 are two brokers,
// reached through the address template at their own listeners; a Pod whose name is no ordinal
// of its pool's StatefulSet runs nothing.
func TestPodSyncJoinsEachPoolsPods(t *testing.T) {
	mislabelled := brokerPod(3, true) // example-3 claiming pool blue
	mislabelled.Labels[v1alpha1.LabelPool] = "blue"
	unlabelled := poolPod("blue", 2, true) // example-blue-2 without the label
	delete(unlabelled.Labels, v1alpha1.LabelPool)
	client := fake.NewClientset(statefulSet(2), poolStatefulSet("blue", 2),
		brokerPod(0, true), brokerPod(1, true), poolPod("blue", 0, true), poolPod("blue", 1, false), mislabelled, unlabelled)
	sim := admintest.NewServer(admintest.Options{})
	t.Cleanup(sim.Close)
	s := startPodSync(t, client, sim)

	awaitPools(t, s, map[string][]int{"": {0, 1}, "blue": {0}})
	if got := s.Running(testNS, testCluster); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Running (the default pool) = %v", got)
	}
	c := sim.Cluster(testNS, testCluster)
	blue := c.Pool("blue")
	defaultID, ok1 := c.NodeID(0)
	blueID, ok2 := blue.NodeID(0)
	if !ok1 || !ok2 || defaultID == blueID {
		t.Fatalf("example-0 runs node %d (%t), example-blue-0 node %d (%t); want two brokers", defaultID, ok1, blueID, ok2)
	}
	if _, ok := blue.NodeID(1); ok {
		t.Error("the broker of a pool Pod that is not Ready joined")
	}
	if len(c.Brokers()) != 3 {
		t.Errorf("brokers %+v; want example-0, example-1 and example-blue-0 only", c.Brokers())
	}

	tmpl, err := admin.ParseAddressTemplate(sim.BrokerAddressTemplate(), admin.DefaultClusterDomain)
	if err != nil {
		t.Fatal(err)
	}
	u, err := tmpl.URL(testNS, testCluster+"-blue", 0, c.AdminPort())
	if err != nil {
		t.Fatal(err)
	}
	cl, err := admin.NewClient(admin.Config{URLs: []string{u}})
	if err != nil {
		t.Fatal(err)
	}
	if nc, err := cl.NodeConfig(context.Background(), 0); err != nil || nc.NodeID != blueID {
		t.Errorf("example-blue-0 at %s answered %+v, %v; want node %d", u, nc, err, blueID)
	}
	if d := s.DescribePods(testNS, testCluster); !strings.Contains(d, "example-3 (, not a Pod of StatefulSet example-blue, ready)") ||
		!strings.Contains(d, "example-blue-2 (, not a Pod of StatefulSet example, ready)") || !strings.Contains(d, "example-blue-0 (, ready)") {
		t.Errorf("DescribePods = %s; want the two stray Pods named", d)
	}
}

// A pool shrinks as a StatefulSet does: a decommissioned broker's Pod leaves cleanly, a Pod that
// goes while still wanted restarts, and a pool whose StatefulSet is gone wants no Pod. The
// default pool is never touched by it.
func TestPodSyncShrinksAPool(t *testing.T) {
	ctx := t.Context()
	client := fake.NewClientset(statefulSet(1), poolStatefulSet("blue", 2),
		brokerPod(0, true), poolPod("blue", 0, true), poolPod("blue", 1, true))
	sim := admintest.NewServer(admintest.Options{})
	t.Cleanup(sim.Close)
	s := startPodSync(t, client, sim)
	awaitPools(t, s, map[string][]int{"": {0}, "blue": {0, 1}})
	c := sim.Cluster(testNS, testCluster)
	blue := c.Pool("blue")
	cl, err := admin.NewClient(c.Config(1))
	if err != nil {
		t.Fatal(err)
	}

	// example-blue-1 is decommissioned, then its StatefulSet shrinks and its Pod goes.
	id1, _ := blue.NodeID(1)
	if err := cl.Decommission(ctx, id1); err != nil {
		t.Fatal(err)
	}
	c.FinishDrains()
	if _, err := client.AppsV1().StatefulSets(testNS).Update(ctx, poolStatefulSet("blue", 1), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Pods(testNS).Delete(ctx, testCluster+"-blue-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitPools(t, s, map[string][]int{"": {0}, "blue": {0}})

	// example-blue-0 goes while its StatefulSet still wants it: a restart.
	if err := client.CoreV1().Pods(testNS).Delete(ctx, testCluster+"-blue-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitPools(t, s, map[string][]int{"": {0}})
	if id0, ok := blue.NodeID(0); !ok {
		t.Error("the broker of restarting example-blue-0 is no longer a member")
	} else if b := brokerOf(c, id0); b.PodRunning || b.Status != admin.MembershipActive {
		t.Errorf("restarting example-blue-0's broker: %+v; want active and not running", b)
	}
	if left := sim.LeftBeforeDecommission(); len(left) != 0 {
		t.Fatalf("leaves before decommission: %v", left)
	}

	// Back, then the pool is removed without a decommission: that leave is recorded, by pool.
	if _, err := client.CoreV1().Pods(testNS).Create(ctx, poolPod("blue", 0, true), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitPools(t, s, map[string][]int{"": {0}, "blue": {0}})
	if err := client.AppsV1().StatefulSets(testNS).Delete(ctx, testCluster+"-blue", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Pods(testNS).Delete(ctx, testCluster+"-blue-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitPools(t, s, map[string][]int{"": {0}})
	if left := sim.LeftBeforeDecommission(); len(left) != 1 || !strings.Contains(left[0], "pool blue ordinal 0") {
		t.Errorf("leaves before decommission %q; want example-blue-0's", left)
	}
	if id, ok := c.NodeID(0); !ok || !brokerOf(c, id).PodRunning {
		t.Error("the default pool's broker stopped with pool blue")
	}
}

// A pool Pod's claim is its broker's data, as a default-pool Pod's is: back on a decommissioned
// broker's claim it is refused.
func TestPodSyncTracksPoolVolumes(t *testing.T) {
	ctx := t.Context()
	client := fake.NewClientset(statefulSet(1), poolStatefulSet("blue", 2), brokerPod(0, true),
		withClaim(poolPod("blue", 0, true), "redpanda:v24.2.4", "datadir-example-blue-0"),
		withClaim(poolPod("blue", 1, true), "redpanda:v24.3.1", "datadir-example-blue-1"),
		claim("datadir-example-blue-0", "uid-b0"), claim("datadir-example-blue-1", "uid-b1"))
	sim := admintest.NewServer(admintest.Options{})
	t.Cleanup(sim.Close)
	s := startPodSync(t, client, sim, WithVolumeIdentity())
	awaitPools(t, s, map[string][]int{"": {0}, "blue": {0, 1}})
	c := sim.Cluster(testNS, testCluster)
	id1, _ := c.Pool("blue").NodeID(1)
	cl, err := admin.NewClient(c.Config(1))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := cl.Broker(ctx, id1); err != nil || b.InternalRPCAddress != "example-blue-1.example-blue.brokers.svc.cluster.local" {
		t.Fatalf("example-blue-1's broker: %+v, %v", b, err)
	}
	if brokers, err := cl.Brokers(ctx); err != nil || versionOf(brokers, id1) != "v24.3.1" {
		t.Errorf("example-blue-1's broker runs %q, %v; want its image tag", versionOf(brokers, id1), err)
	}
	if err := cl.Decommission(ctx, id1); err != nil {
		t.Fatal(err)
	}
	c.FinishDrains()
	if _, err := client.AppsV1().StatefulSets(testNS).Update(ctx, poolStatefulSet("blue", 1), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Pods(testNS).Delete(ctx, testCluster+"-blue-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitPools(t, s, map[string][]int{"": {0}, "blue": {0}})
	if _, err := client.CoreV1().Pods(testNS).Create(ctx, withClaim(poolPod("blue", 1, true), "redpanda:v24.3.1", "datadir-example-blue-1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitPools(t, s, map[string][]int{"": {0}, "blue": {0, 1}})
	if r := sim.RefusedJoins(); len(r) != 1 || !strings.Contains(r[0], fmt.Sprintf("node %d with UUID uid-b1", id1)) || !strings.Contains(r[0], "pool blue ordinal 1") {
		t.Fatalf("RefusedJoins = %q", r)
	}
}

func brokerOf(c *admintest.Cluster, id int) admintest.BrokerState {
	for _, b := range c.Brokers() {
		if b.NodeID == id {
			return b
		}
	}
	return admintest.BrokerState{}
}

func versionOf(brokers []admin.Broker, id int) string {
	for _, b := range brokers {
		if b.NodeID == id {
			return b.Version
		}
	}
	return ""
}

func TestOrdinalIsExact(t *testing.T) {
	for _, tc := range []struct {
		pod, set string
		want     int
		ok       bool
	}{
		{"example-blue-0", "example", 0, false},
		{"example-blue-0", "example-blue", 0, true},
		{"example-0", "example-blue", 0, false},
		{"example-01", "example", 0, false},
		{"example-+1", "example", 0, false},
		{"example-", "example", 0, false},
		{"example-10", "example", 10, true},
	} {
		got, ok := Ordinal(tc.pod, tc.set)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("Ordinal(%q, %q) = %d, %v; want %d, %v", tc.pod, tc.set, got, ok, tc.want, tc.ok)
		}
	}
}

// Converged reads what PodSync reported and what the simulator holds, pool by pool.
func TestConvergedReadsEveryPool(t *testing.T) {
	ctx := t.Context()
	client := fake.NewClientset(statefulSet(0), poolStatefulSet("blue", 3),
		poolPod("blue", 0, true), poolPod("blue", 1, true), poolPod("blue", 2, true))
	sim := admintest.NewServer(admintest.Options{})
	t.Cleanup(sim.Close)
	s := startPodSync(t, client, sim)
	awaitPools(t, s, map[string][]int{"blue": {0, 1, 2}})
	bc := movedCluster()
	bc.Namespace, bc.Name = testNS, testCluster
	if ok, why := s.Converged(bc, 0); !ok {
		t.Fatalf("not converged: %s", why)
	}

	if _, err := client.CoreV1().Pods(testNS).UpdateStatus(ctx, poolPod("blue", 2, false), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitPools(t, s, map[string][]int{"blue": {0, 1}})
	if ok, why := s.Converged(bc, 0); ok || !strings.Contains(why, "pool blue: broker pods [0 1]") {
		t.Errorf("with example-blue-2 not Ready: %t, %q", ok, why)
	}
}
