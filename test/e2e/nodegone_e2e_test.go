//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// A node deleted under a broker with a local volume: its pod, made again by the StatefulSet,
// cannot be scheduled, and the operator says so (NodeLost, naming the pod, the claim and the
// node, and a Warning event) and deletes nothing. With spec.nodeLossRecovery the broker comes
// back on an empty volume on another node with a new node ID, the old ID is decommissioned,
// the old volume is kept (Retain), and never are two brokers unavailable.
func TestABrokerWhoseNodeIsGoneComesBackOnANewVolume(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name = "nodegone"
	taint := corev1.Taint{Key: "e2e-nodegone", Value: ns, Effect: corev1.TaintEffectNoSchedule}
	nodes := []string{ns + "-a", ns + "-b"}
	remove := map[string]func(){}
	for _, n := range nodes {
		r, err := env.cp.AddFakeNode(t.Context(), n, map[string]string{"e2e-nodegone": ns}, []corev1.Taint{taint})
		if err != nil {
			t.Fatal(err)
		}
		remove[n] = r
		t.Cleanup(r)
	}
	// A local volume class: each claim gets a volume on the node its pod was scheduled to.
	class := "local-" + ns
	localClass := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: brokersim.Provisioner,
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)}
	if _, err := env.Kube.StorageV1().StorageClasses().Create(t.Context(), localClass, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Kube.StorageV1().StorageClasses().Delete(context.Background(), class, metav1.DeleteOptions{})
	})
	env.Pods.TrackVolumes(ns, name) // a new claim is a fresh broker
	startOperator(t, ns, "a")

	// Brokers 0 and 1 on node a, then broker 2 alone on node b.
	cordon(t, nodes[1], true)
	bc := env.BrokerCluster(ns, name, 2)
	bc.Spec.Storage.StorageClassName = ptr.To(class)
	bc.Spec.NodeSelector = map[string]string{"e2e-nodegone": ns}
	bc.Spec.Tolerations = append(bc.Spec.Tolerations, corev1.Toleration{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: ns, Effect: corev1.TaintEffectNoSchedule})
	// Two brokers share node a, and the recovered broker goes there too: the README's softened
	// anti-affinity, since the default puts at most one broker on a node.
	bc.Spec.Affinity = preferOnePerNode(name)
	env.Sim.Cluster(ns, name).SetDrainTime(time.Second)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 2)
	cordon(t, nodes[0], true)
	cordon(t, nodes[1], false)
	env.Scale(t, ns, name, 3)
	env.AwaitConverged(t, ns, name, 3)
	cordon(t, nodes[0], false)
	pod2 := podOf(t, ns, name+"-2")
	if pod2.Spec.NodeName != nodes[1] {
		t.Fatalf("pod %s runs on %s, want %s", pod2.Name, pod2.Spec.NodeName, nodes[1])
	}
	ids := env.NodeIDs(t, ns, name, 3)
	oldClaim := claimUID(t, ns, claimOf(name, 2))
	oldVolume := volumeOf(t, ns, claimOf(name, 2))
	unavailable := watchUnavailable(t, ns, name, 3)

	// Node b goes; the pod garbage collector deletes the pods bound to a node that no longer
	// exists (kubernetes pkg/controller/podgc, gcOrphaned), as the test does here at once.
	remove[nodes[1]]()
	if err := env.Kube.CoreV1().Pods(ns).Delete(t.Context(), pod2.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0),
		Preconditions: &metav1.Preconditions{UID: ptr.To(pod2.UID)}}); err != nil {
		t.Fatal(err)
	}
	awaitStatus(t, ns, name, "the NodeLost condition", func(bc *v1alpha1.BrokerCluster) bool {
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionNodeLost)
		return c != nil && c.Status == metav1.ConditionTrue && strings.Contains(c.Message, "pod "+name+"-2") &&
			strings.Contains(c.Message, claimOf(name, 2)) && strings.Contains(c.Message, nodes[1])
	})
	awaitEventMessage(t, ns, name, "NodeLost", corev1.EventTypeWarning, "volume claim "+claimOf(name, 2))
	if uid := claimUID(t, ns, claimOf(name, 2)); uid != oldClaim {
		t.Fatalf("claim %s was replaced without spec.nodeLossRecovery", claimOf(name, 2))
	}

	// The opt-in.
	patch := []byte(`{"spec":{"decommissionGhostBrokers":true,"nodeLossRecovery":{"gracePeriod":"1s"}}}`)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitEventMessage(t, ns, name, "RecoverLostBroker", corev1.EventTypeWarning, fmt.Sprintf("bringing back broker %d", ids[2]))
	awaitStatus(t, ns, name, "the broker back under a new ID and the old one gone", func(bc *v1alpha1.BrokerCluster) bool {
		id, ok := env.Sim.Cluster(ns, name).NodeID(2)
		return ok && id != ids[2] && len(bc.Status.BrokersOnLostNodes) == 0 && len(bc.Status.GhostBrokers) == 0 &&
			meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionReady) && memberRemoved(ns, name, ids[2])
	})
	if !decommissioned(ns, name, ids[2]) {
		t.Errorf("broker %d was not decommissioned", ids[2])
	}
	if p := podOf(t, ns, name+"-2"); p.Spec.NodeName != nodes[0] {
		t.Errorf("pod %s runs on %s, want %s, the node that is left", p.Name, p.Spec.NodeName, nodes[0])
	}
	pv, err := env.Kube.CoreV1().PersistentVolumes().Get(t.Context(), oldVolume, metav1.GetOptions{})
	if err != nil || pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
		t.Errorf("the lost broker's volume %s: %v, %v; want it kept, reclaim policy Retain", oldVolume, pv, err)
	}
	if n := unavailable(); n > 1 {
		t.Errorf("%d brokers were unavailable at once", n)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

func podOf(t *testing.T, ns, name string) *corev1.Pod {
	t.Helper()
	p, err := env.Kube.CoreV1().Pods(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func claimUID(t *testing.T, ns, claim string) types.UID {
	t.Helper()
	c, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), claim, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c.UID
}

func volumeOf(t *testing.T, ns, claim string) string {
	t.Helper()
	c, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), claim, metav1.GetOptions{})
	if err != nil || c.Spec.VolumeName == "" {
		t.Fatalf("claim %s/%s is not bound: %v", ns, claim, err)
	}
	return c.Spec.VolumeName
}

// memberRemoved reports whether the simulator lists broker id as removed from the cluster.
func memberRemoved(ns, name string, id int) bool {
	for _, b := range env.Sim.Cluster(ns, name).Brokers() {
		if b.NodeID == id {
			return b.Status == admin.MembershipRemoved
		}
	}
	return false
}

// decommissioned reports whether broker id was decommissioned through the admin API.
func decommissioned(ns, name string, id int) bool {
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		if c.Method == "PUT" && c.Status == 200 && c.Path == fmt.Sprintf("/v1/brokers/%d/decommission", id) {
			return true
		}
	}
	return false
}

// watchUnavailable watches the cluster's pods until the test ends, and returns a function that
// tells the most of the first replicas ordinals that were missing or not Ready at once.
func watchUnavailable(t *testing.T, ns, name string, replicas int) func() int {
	t.Helper()
	selector := controller.LabelInstance + "=" + name
	list, err := env.Kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	ready := map[string]bool{}
	for _, p := range list.Items {
		ready[p.Name] = p.DeletionTimestamp == nil && brokersim.PodReady(&p)
	}
	w, err := env.Kube.CoreV1().Pods(ns).Watch(t.Context(), metav1.ListOptions{LabelSelector: selector, ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	most := 0
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			mu.Lock()
			ready[p.Name] = ev.Type != watch.Deleted && p.DeletionTimestamp == nil && brokersim.PodReady(p)
			down := 0
			for o := range replicas {
				if !ready[fmt.Sprintf("%s-%d", name, o)] {
					down++
				}
			}
			most = max(most, down)
			mu.Unlock()
		}
	}()
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return most
	}
}
