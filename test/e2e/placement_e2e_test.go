//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// A cluster of three brokers on two nodes of its own: the scheduler puts one broker on each
// node and leaves the third Pending, and the cluster is Degraded (BrokerPodCannotStart) naming
// that pod, the scheduler's words and what places it. A third node lets it start, every broker
// on a node of its own. Softening the default to a preference restarts the brokers one at a
// time through the rollout, and the restarts name the affinity.
func TestBrokersRunOnePerNodeAndWaitForANode(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name = "placed"
	taint := corev1.Taint{Key: "e2e-placement", Value: ns, Effect: corev1.TaintEffectNoSchedule}
	addNode := func(suffix, zone string) {
		t.Helper()
		labels := map[string]string{"e2e-placement": ns, corev1.LabelTopologyZone: ns + "-" + zone}
		remove, err := env.cp.AddFakeNode(t.Context(), ns+"-"+suffix, labels, []corev1.Taint{taint})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(remove)
	}
	addNode("a", "zone-a")
	addNode("b", "zone-b")
	startOperator(t, ns, "a")

	bc := env.BrokerCluster(ns, name, 3)
	bc.Spec.NodeSelector = map[string]string{"e2e-placement": ns}
	bc.Spec.Tolerations = append(bc.Spec.Tolerations, corev1.Toleration{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: ns, Effect: taint.Effect})
	env.Sim.Cluster(ns, name).SetDrainTime(time.Second)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	pending := awaitOnePodUnschedulable(t, ns, name)
	cond := awaitDegraded(t, ns, name, controller.ReasonBrokerPodCannotStart, "pod "+pending.Name+" cannot be scheduled")
	for _, want := range []string{"anti-affinity", "add a node", "spec.affinity"} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("Degraded message %q lacks %q", cond.Message, want)
		}
	}
	awaitEventMessage(t, ns, name, "WaitForStuckPod", corev1.EventTypeWarning, pending.Name)
	got, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionReady) || got.Status.ReadyReplicas != 2 {
		t.Errorf("while a broker waits for a node: ready %d, Ready %+v; want 2 ready and Ready False",
			got.Status.ReadyReplicas, meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady))
	}
	checkOnePerNode(t, ns, name, 2)

	addNode("c", "zone-c")
	env.AwaitConverged(t, ns, name, 3)
	awaitStatus(t, ns, name, "Degraded to clear", func(bc *v1alpha1.BrokerCluster) bool {
		return meta.IsStatusConditionFalse(bc.Status.Conditions, v1alpha1.ConditionDegraded)
	})
	checkOnePerNode(t, ns, name, 3)

	soft, err := json.Marshal(map[string]any{"spec": map[string]any{"affinity": preferOnePerNode(name)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, soft, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitEventMessage(t, ns, name, "StartRestart", corev1.EventTypeNormal, "pod template fields affinity")
	awaitStatus(t, ns, name, "the rollout of the softened affinity to finish", func(bc *v1alpha1.BrokerCluster) bool {
		return bc.Status.ObservedGeneration == bc.Generation && bc.Status.Restart == nil && bc.Status.UpdatedReplicas == 3 &&
			meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionReady)
	})
	events, err := env.Kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.Reason == "StartRestart" && strings.Contains(e.Message, "topologySpreadConstraints") {
			t.Errorf("a restart names the topology spread, which did not change (the apiserver's defaults?): %s", e.Message)
		}
	}
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	checkBrokersSafe(t, ns, name)
}

// preferOnePerNode is the README's softened anti-affinity (Placement): brokers spread over the
// nodes while they can, and two share a node when they must.
func preferOnePerNode(name string) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{
			TopologyKey:   corev1.LabelHostname,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{controller.LabelInstance: name}},
		}}},
	}}
}

// clusterPods lists the broker pods of a cluster.
func clusterPods(ctx context.Context, ns, name string) ([]corev1.Pod, error) {
	pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controller.LabelInstance + "=" + name})
	if err != nil {
		return nil, err
	}
	return pods.Items, nil
}

// awaitOnePodUnschedulable waits until all three broker pods exist, two scheduled and one that the
// scheduler has found no node for, and returns that one.
func awaitOnePodUnschedulable(t *testing.T, ns, name string) corev1.Pod {
	t.Helper()
	var (
		found corev1.Pod
		last  string
	)
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		pods, err := clusterPods(ctx, ns, name)
		if err != nil || len(pods) != 3 {
			last = fmt.Sprintf("%d pods (%v)", len(pods), err)
			return false, nil
		}
		// A pod is also briefly unschedulable while its claim is bound, so the one left over is
		// known only once the other two are on nodes.
		var unschedulable []corev1.Pod
		scheduled := 0
		for _, p := range pods {
			if p.Spec.NodeName != "" {
				scheduled++
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
					unschedulable = append(unschedulable, p)
				}
			}
		}
		last = fmt.Sprintf("%d of 3 pods unschedulable, %d on nodes", len(unschedulable), scheduled)
		if len(unschedulable) != 1 || scheduled != 2 {
			return false, nil
		}
		found = unschedulable[0]
		return true, nil
	})
	if err != nil {
		t.Fatalf("no broker pod of %s/%s left unschedulable within %s: %s", ns, name, convergeLimit, last)
	}
	if found.Spec.NodeName != "" || found.Status.Phase != corev1.PodPending {
		t.Errorf("unschedulable pod %s on node %q, phase %s; want it Pending on none", found.Name, found.Spec.NodeName, found.Status.Phase)
	}
	return found
}

// checkOnePerNode fails the test unless exactly n broker pods of the cluster are on nodes, each
// on a node of its own, and each carries the default spread over zones.
func checkOnePerNode(t *testing.T, ns, name string, n int) {
	t.Helper()
	pods, err := clusterPods(t.Context(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	byNode := map[string][]string{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p.Name)
		}
		if c := p.Spec.TopologySpreadConstraints; len(c) != 1 || c[0].TopologyKey != corev1.LabelTopologyZone || c[0].WhenUnsatisfiable != corev1.ScheduleAnyway {
			t.Errorf("pod %s spreads %+v, want over %s, ScheduleAnyway", p.Name, c, corev1.LabelTopologyZone)
		}
	}
	if len(byNode) != n {
		t.Errorf("broker pods by node %v, want %d nodes", byNode, n)
	}
	for node, names := range byNode {
		if len(names) > 1 {
			t.Errorf("node %s runs %d brokers of %s: %v", node, len(names), name, names)
		}
	}
}
