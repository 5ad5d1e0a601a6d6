//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/brokerenv"
)

// A paused cluster: a scale-down and an image change asked for while it is paused make no admin
// call and no write but the status's disruption preview (the simulator's call log and the
// apiserver's audit log), until the pause ends; then both are carried out.
func TestAPausedClusterIsLeftAloneUntilResumed(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	op := startOperator(t, ns, "a")
	const name = "paused"
	createAt(t, ns, name, "v25.1.2")
	setPaused(t, ns, name, `"true"`)
	awaitStatus(t, ns, name, "the Paused condition", func(bc *v1alpha1.BrokerCluster) bool {
		return meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionPaused)
	})
	since := time.Now()
	callsBefore := len(env.Sim.Cluster(ns, name).Calls())
	patch := []byte(`{"spec":{"replicas":2,"image":"registry.invalid/broker:v25.1.3"}}`)
	changed, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The operator has read the change, and left it alone, once it logs so for its resourceVersion.
	seen := fmt.Sprintf(`"BrokerCluster is paused: nothing done" brokercluster=%q resourceVersion=%q`, ns+"/"+name, changed.ResourceVersion)
	if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		return op.logContains(seen), nil
	}); err != nil {
		t.Fatalf("the operator never read the change while paused (%s): %v", seen, err)
	}
	if calls := env.Sim.Cluster(ns, name).Calls()[callsBefore:]; len(calls) > 0 {
		t.Errorf("%d admin calls while paused, the first %s %s", len(calls), calls[0].Method, calls[0].Path)
	}
	reqs, err := env.cp.ServiceAccountRequests()
	if err != nil {
		t.Fatal(err)
	}
	status := "/namespaces/" + ns + "/brokerclusters/" + name + "/status"
	for _, r := range reqs {
		write := r.Verb != "get" && r.Verb != "list" && r.Verb != "watch"
		if r.User == brokerenv.OperatorUser && write && r.At.After(since) && strings.Contains(r.RequestURI, "/namespaces/"+ns+"/") &&
			!strings.Contains(r.RequestURI, "/events") && !(r.Verb == "patch" && strings.HasSuffix(r.RequestURI, status)) {
			t.Errorf("a write while paused: %s %s", r.Verb, r.RequestURI)
		}
	}
	// The one status write is the preview of the change; nothing else in status moved.
	bc := awaitStatus(t, ns, name, "the preview of the change", func(bc *v1alpha1.BrokerCluster) bool {
		p := bc.Status.DisruptionPreview
		return p != nil && p.ObservedGeneration == changed.Generation && len(p.Disruptions) == 3
	})
	if bc.Status.ObservedGeneration == changed.Generation || bc.Status.CurrentReplicas != 3 {
		t.Errorf("status moved while paused: observedGeneration %d, currentReplicas %d", bc.Status.ObservedGeneration, bc.Status.CurrentReplicas)
	}

	setPaused(t, ns, name, "null")
	awaitImageRolledOut(t, ns, name, 2, "registry.invalid/broker:v25.1.3")
	bc = awaitStatus(t, ns, name, "the Paused condition False", func(bc *v1alpha1.BrokerCluster) bool {
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionPaused)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == controller.ReasonResumed
	})
	if bc.Status.CurrentReplicas != 2 {
		t.Errorf("currentReplicas %d after resuming, want 2", bc.Status.CurrentReplicas)
	}
	checkBrokersSafe(t, ns, name)
}

// setPaused sets the pause annotation to value, a JSON value ("null" removes it).
func setPaused(t *testing.T, ns, name, value string) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%s}}}`, controller.AnnotationPaused, value)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}
