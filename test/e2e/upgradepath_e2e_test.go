//go:build e2e

package e2e

import (
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// An image that skips a feature release (v24.2 to v25.1) is held before any broker restarts,
// with a Degraded condition and one Warning event naming both versions and the rule; the next
// feature release (v24.3) then rolls out, each restart naming the image change, and the
// cluster's active logical version moves up once every broker runs it.
func TestAnImageThatSkipsAFeatureReleaseIsHeldAndTheNextOneRolls(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "upgrade"
	createAt(t, ns, name, "v24.2.4")
	before := podUIDs(t, ns, name)
	setImage(t, ns, name, "registry.invalid/broker:v25.1.1")
	held := awaitStatus(t, ns, name, "the rollout held, naming both versions and the rule", func(bc *v1alpha1.BrokerCluster) bool {
		d := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		return d != nil && d.Status == metav1.ConditionTrue && d.Reason == controller.ReasonUnsupportedVersionChange &&
			d.ObservedGeneration == bc.Generation
	})
	d := meta.FindStatusCondition(held.Status.Conditions, v1alpha1.ConditionDegraded)
	for _, want := range []string{"v24.2.4", "v25.1.1", "one feature release at a time", "v24.3"} {
		if !strings.Contains(d.Message, want) {
			t.Errorf("Degraded message %q does not name %q", d.Message, want)
		}
	}
	if held.Status.Restart != nil || held.Status.UpdatedReplicas != 0 {
		t.Errorf("held, yet status shows a restart %+v or %d pods updated", held.Status.Restart, held.Status.UpdatedReplicas)
	}
	if ons := maintenanceOns(ns, name); len(ons) > 0 {
		t.Errorf("a broker went into maintenance while the rollout was held: %+v", ons)
	}
	if now := podUIDs(t, ns, name); !maps.Equal(now, before) {
		t.Errorf("pods changed while the rollout was held: %v, were %v", now, before)
	}
	awaitEventMessage(t, ns, name, "HoldVersionChange", corev1.EventTypeWarning, "skips a feature release")

	setImage(t, ns, name, "registry.invalid/broker:v24.3.1")
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v24.3.1")
	awaitEventMessage(t, ns, name, "HoldVersionChange", corev1.EventTypeNormal, "no longer held")
	// Each restart names its change, and only that: the apiserver's defaults on the pods are not
	// template fields that changed.
	awaitEventMessage(t, ns, name, "StartRestart", corev1.EventTypeNormal,
		"to apply a change that needs a restart (image registry.invalid/broker:v24.2.4 to registry.invalid/broker:v24.3.1):")
	bc := awaitStatus(t, ns, name, "Degraded cleared", func(bc *v1alpha1.BrokerCluster) bool {
		return meta.IsStatusConditionFalse(bc.Status.Conditions, v1alpha1.ConditionDegraded)
	})
	if bc.Status.UpdatedReplicas != 3 {
		t.Errorf("%d pods updated, want 3", bc.Status.UpdatedReplicas)
	}
	if v := env.Sim.Cluster(ns, name).ActiveVersion(); v != 14 {
		t.Errorf("active logical version %d once every broker runs v24.3, want 14 (release_version v24_3_1)", v)
	}
	warnings := 0
	events, err := env.Kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.Reason == "HoldVersionChange" && e.Type == corev1.EventTypeWarning {
			warnings += int(max(e.Count, 1))
		}
		if e.Reason == "StartRestart" && strings.Contains(e.Message, "pod template fields") {
			t.Errorf("a restart names template fields that did not change: %s", e.Message)
		}
	}
	if warnings != 1 {
		t.Errorf("%d Warning events for one hold, want 1", warnings)
	}
	checkBrokersSafe(t, ns, name)
}

// A rollback to the original release goes ahead while a broker still runs it, and is held once
// every broker has run the new release and the active version has moved.
func TestARollbackRollsOnlyWhileABrokerRunsTheOriginalRelease(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "rollback"
	createAt(t, ns, name, "v25.1.2")
	sim := env.Sim.Cluster(ns, name)
	// Broker 0's own probe holds its restart, so it stays on v25.1 while the others roll.
	sim.SetRestartRisks(0, admin.RestartRisks{Acks1DataLoss: []string{"kafka/orders/3"}})
	setImage(t, ns, name, "registry.invalid/broker:v25.2.1")
	awaitStatus(t, ns, name, "two brokers on v25.2, broker 0 held on v25.1", func(bc *v1alpha1.BrokerCluster) bool {
		return bc.Status.UpdatedReplicas == 2 && bc.Status.Restart == nil
	})
	setImage(t, ns, name, "registry.invalid/broker:v25.1.2")
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.1.2")
	if v := sim.ActiveVersion(); v != 15 {
		t.Fatalf("active logical version %d after the rollback, want 15 (v25.1)", v)
	}

	sim.SetRestartRisks(0, admin.RestartRisks{})
	setImage(t, ns, name, "registry.invalid/broker:v25.2.1")
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.2.1")
	before := podUIDs(t, ns, name)
	setImage(t, ns, name, "registry.invalid/broker:v25.1.2")
	held := awaitStatus(t, ns, name, "the rollback held", func(bc *v1alpha1.BrokerCluster) bool {
		d := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		return d != nil && d.Reason == controller.ReasonUnsupportedVersionChange && d.ObservedGeneration == bc.Generation
	})
	if d := meta.FindStatusCondition(held.Status.Conditions, v1alpha1.ConditionDegraded); !strings.Contains(d.Message, "v25.2.1") ||
		!strings.Contains(d.Message, "v25.1.2") || !strings.Contains(d.Message, "none runs v25.1") {
		t.Errorf("Degraded message %q does not name both versions and the rule", d.Message)
	}
	if now := podUIDs(t, ns, name); !maps.Equal(now, before) {
		t.Errorf("pods changed while the rollback was held: %v, were %v", now, before)
	}
	for _, r := range env.Sim.RefusedJoins() {
		if strings.HasPrefix(r, ns+"/") {
			t.Errorf("a join was refused: %s", r)
		}
	}
	checkBrokersSafe(t, ns, name)
}
