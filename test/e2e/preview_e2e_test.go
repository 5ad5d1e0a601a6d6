//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A change previewed on a paused cluster, as the README tells users to: pause, change the spec
// (one broker fewer and a new image) and ask for one pod's restart, read status.disruptionPreview
// once it is of the new generation, resume. The operator then decommissions and restarts
// exactly the brokers the preview named, in its order (the simulator's call log), and each
// restart's event names the reason the preview gave; the preview empties once it is done.
func TestThePreviewOfAPausedChangeIsWhatTheOperatorThenDoes(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "preview"
	bc := env.BrokerCluster(ns, name, 4)
	bc.Spec.Image = "registry.invalid/broker:v25.1.2"
	env.Sim.Cluster(ns, name).SetDrainTime(time.Second)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 4)
	ids := env.NodeIDs(t, ns, name, 4)
	// The controller leader restarts last: on ordinal 1 it is last of the order the preview
	// shows while it is not known yet.
	env.Sim.Cluster(ns, name).SetControllerLeader(1)

	setPaused(t, ns, name, `"true"`)
	patch := []byte(`{"spec":{"replicas":3,"image":"registry.invalid/broker:v25.1.3"}}`)
	changed, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	annotation := []byte(`{"metadata":{"annotations":{"broker-operator.dev/restart-requested":"a person"}}}`)
	if _, err := env.Kube.CoreV1().Pods(ns).Patch(t.Context(), name+"-0", types.MergePatchType, annotation, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	paused := awaitStatus(t, ns, name, "the preview of the change", func(bc *v1alpha1.BrokerCluster) bool {
		p := bc.Status.DisruptionPreview
		return p != nil && p.ObservedGeneration == changed.Generation && len(p.Disruptions) == 4 &&
			strings.Contains(p.Disruptions[1].Reason, "restart asked for")
	})
	preview := paused.Status.DisruptionPreview
	image := "image registry.invalid/broker:v25.1.2 to registry.invalid/broker:v25.1.3"
	want := []string{
		fmt.Sprintf("Decommission %s-3 (broker %d): scaling down from 4 to 3 brokers", name, ids[3]),
		fmt.Sprintf("Restart %s-0 (broker %d): %s; a restart asked for on its pod (broker-operator.dev/restart-requested: a person)", name, ids[0], image),
		fmt.Sprintf("Restart %s-2 (broker %d): %s", name, ids[2], image),
		fmt.Sprintf("Restart %s-1 (broker %d): %s", name, ids[1], image),
	}
	if got := previewLines(preview); !slices.Equal(got, want) {
		t.Fatalf("preview of the paused change:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if paused.Status.ObservedGeneration == changed.Generation || paused.Status.CurrentReplicas != 4 {
		t.Errorf("status moved while paused: observedGeneration %d, currentReplicas %d", paused.Status.ObservedGeneration, paused.Status.CurrentReplicas)
	}
	if len(preview.Notes) != 2 || !strings.Contains(preview.Notes[0], "pre-flight") || !strings.Contains(preview.Notes[1], "controller leader is not known") {
		t.Errorf("notes %q, want one saying the scale-down's pre-flight is still to come and one that the controller leader is not known yet", preview.Notes)
	}
	if got := fmt.Sprint(tableRow(t, ns, name)["Next-Disruption"]); got != name+"-3" {
		t.Errorf("printer column Next-Disruption shows %q, want %s-3", got, name)
	}
	if calls := adminCalls(ns, name, "decommission"); len(calls) > 0 || len(maintenanceCalls(ns, name)) > 0 {
		t.Fatalf("disrupted while paused: decommissions %v, maintenance %v", calls, maintenanceCalls(ns, name))
	}

	setPaused(t, ns, name, "null")
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.1.3")
	podOf := map[int]string{}
	for ordinal, id := range ids {
		podOf[id] = fmt.Sprintf("%s-%d", name, ordinal)
	}
	var done []string
	for _, id := range adminCalls(ns, name, "decommission") {
		done = append(done, "Decommission "+podOf[id])
	}
	for _, c := range maintenanceCalls(ns, name) {
		var id int
		if _, err := fmt.Sscanf(c, "on %d", &id); err == nil {
			done = append(done, "Restart "+podOf[id])
		}
	}
	var planned []string
	for _, d := range preview.Disruptions {
		planned = append(planned, fmt.Sprintf("%s %s", d.Action, d.Pod))
	}
	if !slices.Equal(done, planned) {
		t.Errorf("the operator did %v, the preview said %v", done, planned)
	}
	events, err := env.Kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range preview.Disruptions[1:] {
		if !slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
			return e.Reason == "StartRestart" && strings.Contains(e.Message, "(pod "+d.Pod+")") && strings.Contains(e.Message, d.Reason)
		}) {
			t.Errorf("no StartRestart event of %s naming %q", d.Pod, d.Reason)
		}
	}
	awaitStatus(t, ns, name, "the preview emptied", func(bc *v1alpha1.BrokerCluster) bool {
		p := bc.Status.DisruptionPreview
		return p != nil && p.ObservedGeneration == bc.Generation && len(p.Disruptions) == 0 && p.ControllerLeader == nil && len(p.Notes) == 0
	})
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// previewLines are a preview's disruptions as "Restart pod (broker ID): reason".
func previewLines(p *v1alpha1.DisruptionPreview) []string {
	var out []string
	for _, d := range p.Disruptions {
		id := "unknown"
		if d.BrokerID != nil {
			id = fmt.Sprint(*d.BrokerID)
		}
		out = append(out, fmt.Sprintf("%s %s (broker %s): %s", d.Action, d.Pod, id, d.Reason))
	}
	return out
}
