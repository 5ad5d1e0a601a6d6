package brokersim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

const (
	testNS      = "brokers"
	testCluster = "example"
	// reportLimit bounds each wait for PodSync to report; it does so at once when it works.
	reportLimit = 30 * time.Second
)

func brokerPod(ordinal int, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: testNS,
			Name:      fmt.Sprintf("%s-%d", testCluster, ordinal),
			Labels: map[string]string{
				controller.LabelManagedBy: controller.ManagedByValue,
				controller.LabelName:      controller.NameValue,
				controller.LabelInstance:  testCluster,
			},
		},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
}

func statefulSet(replicas int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: testCluster},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
	}
}

// startPodSync starts PodSync over client and waits until its pod watch is open: the fake
// clientset loses a delete made between the informer's List and its Watch
// (kubernetes/kubernetes#141528).
func startPodSync(t *testing.T, client *fake.Clientset, sim *admintest.Server, opts ...PodSyncOption) *PodSync {
	t.Helper()
	watches := writebacktest.RecordWatches(&client.Fake, client.Tracker())
	s, err := StartPodSync(t.Context(), client, sim, "", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	if err := watches.Await(t.Context(), corev1.SchemeGroupVersion.WithResource("pods")); err != nil {
		t.Fatal(err)
	}
	return s
}

// awaitRunning waits for PodSync to report exactly want, change by change.
func awaitRunning(t *testing.T, s *PodSync, want []int) {
	t.Helper()
	deadline := time.After(reportLimit)
	for {
		changed := s.Changes()
		if got := s.Running(testNS, testCluster); slices.Equal(got, want) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("running brokers %v, want %v", s.Running(testNS, testCluster), want)
		}
	}
}

func brokerStatuses(sim *admintest.Server) map[int]admin.MembershipStatus {
	out := map[int]admin.MembershipStatus{}
	for _, b := range sim.Cluster(testNS, testCluster).Brokers() {
		out[b.Ordinal] = b.Status
	}
	return out
}

func TestPodSyncJoinsReadyPodsAndTellsLeavingFromRestarting(t *testing.T) {
	ctx := t.Context()
	client := fake.NewClientset(statefulSet(3), brokerPod(0, true), brokerPod(1, true), brokerPod(2, false))
	sim := admintest.NewServer(admintest.Options{})
	t.Cleanup(sim.Close)
	s := startPodSync(t, client, sim)

	awaitRunning(t, s, []int{0, 1})
	if _, ok := sim.Cluster(testNS, testCluster).NodeID(2); ok {
		t.Error("the broker of a pod that is not Ready joined")
	}

	if _, err := client.CoreV1().Pods(testNS).UpdateStatus(ctx, brokerPod(2, true), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitRunning(t, s, []int{0, 1, 2})
	id2, ok := sim.Cluster(testNS, testCluster).NodeID(2)
	if !ok {
		t.Fatal("the broker of pod 2 did not join once the pod was Ready")
	}

	// Pod 1 goes while the StatefulSet still wants it: a restart, so its broker stays a member.
	if err := client.CoreV1().Pods(testNS).Delete(ctx, brokerPod(1, true).Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitRunning(t, s, []int{0, 2})
	if got := brokerStatuses(sim)[1]; got != admin.MembershipActive {
		t.Errorf("broker of restarting pod 1 is %q, want still active", got)
	}
	if left := sim.LeftBeforeDecommission(); len(left) > 0 {
		t.Errorf("a restart was taken for a leave: %v", left)
	}

	// The StatefulSet shrinks and pod 2 goes: its broker left without a decommission, which the
	// simulator must record.
	if _, err := client.AppsV1().StatefulSets(testNS).Update(ctx, statefulSet(2), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Pods(testNS).Delete(ctx, brokerPod(2, true).Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitRunning(t, s, []int{0})
	if left := sim.LeftBeforeDecommission(); len(left) != 1 {
		t.Errorf("leaves before decommission %v, want exactly pod 2's (node %d)", left, id2)
	}
}

func TestOrdinal(t *testing.T) {
	for _, tc := range []struct {
		pod  string
		want int
		ok   bool
	}{
		{"example-0", 0, true},
		{"example-12", 12, true},
		{"example-x", 0, false},
		{"other-1", 0, false},
		{"example--1", 0, false},
		{"example-ab-1", 0, false},
	} {
		got, ok := Ordinal(tc.pod, "example")
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("Ordinal(%q) = %d, %v; want %d, %v", tc.pod, got, ok, tc.want, tc.ok)
		}
	}
}

func TestVolumeNameIsValidAndDistinct(t *testing.T) {
	long := string(slices.Repeat([]byte("n"), 63))
	a, b := VolumeName(long, "datadir-"+long+"-1"), VolumeName(long, "datadir-"+long+"-2")
	if a == b {
		t.Errorf("two claims share volume name %q", a)
	}
	if len(a) > 253 {
		t.Errorf("volume name is %d characters long, over the 253 a name may have", len(a))
	}
}

// withClaim gives a broker pod an image and a claim.
func withClaim(p *corev1.Pod, image, claim string) *corev1.Pod {
	p.Spec.Containers = []corev1.Container{{Name: "broker", Image: image}}
	p.Spec.Volumes = []corev1.Volume{{Name: "datadir", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
	return p
}

func claim(name, uid string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: name, UID: types.UID(uid)}}
}

func TestPodSyncReportsVersionsAndRefusesADecommissionedBrokersClaim(t *testing.T) {
	ctx := t.Context()
	client := fake.NewClientset(statefulSet(2),
		withClaim(brokerPod(0, true), "registry.invalid/redpanda:v24.2.4", "datadir-example-0"),
		withClaim(brokerPod(1, true), "localhost:5000/redpanda:v24.3.1@sha256:abc", "datadir-example-1"),
		claim("datadir-example-0", "uid-0"), claim("datadir-example-1", "uid-1"))
	sim := admintest.NewServer(admintest.Options{})
	t.Cleanup(sim.Close)
	s := startPodSync(t, client, sim, WithVolumeIdentity())
	awaitRunning(t, s, []int{0, 1})
	c := sim.Cluster(testNS, testCluster)
	cl, err := admin.NewClient(c.Config(2))
	if err != nil {
		t.Fatal(err)
	}
	brokers, err := cl.Brokers(ctx)
	if err != nil || len(brokers) != 2 || brokers[0].Version != "v24.2.4" || brokers[1].Version != "v24.3.1" {
		t.Fatalf("brokers = %+v, %v; want each pod's image tag as version", brokers, err)
	}
	id1, _ := c.NodeID(1)
	if err := cl.Decommission(ctx, id1); err != nil {
		t.Fatal(err)
	}
	c.FinishDrains()
	if _, err := client.AppsV1().StatefulSets(testNS).Update(ctx, statefulSet(1), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Pods(testNS).Delete(ctx, brokerPod(1, true).Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitRunning(t, s, []int{0})
	// Scale up again on the same claim: Redpanda refuses the decommissioned node's data.
	if _, err := client.CoreV1().Pods(testNS).Create(ctx, withClaim(brokerPod(1, true), "redpanda:v24.3.1", "datadir-example-1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitRunning(t, s, []int{0, 1})
	if r := sim.RefusedJoins(); len(r) != 1 || !strings.Contains(r[0], fmt.Sprintf("node %d with UUID uid-1", id1)) {
		t.Fatalf("RefusedJoins = %v", r)
	}
	if _, ok := c.NodeID(1); ok {
		t.Error("a pod on a decommissioned broker's claim joined")
	}
}
