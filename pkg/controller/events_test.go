package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// storyOf splits recorded events ("Type Reason message") into "Type Reason" and fails the test
// if one event was recorded twice.
func storyOf(t *testing.T, events []string) []string {
	t.Helper()
	var out []string
	for i, e := range events {
		if slices.Contains(events[:i], e) {
			t.Errorf("event recorded twice: %q", e)
		}
		f := strings.SplitN(e, " ", 3)
		out = append(out, f[0]+" "+f[1])
	}
	return out
}

// A scale-down with a drain polled many times, a rollout whose leadership drains take several
// polls, and a scale-up: each start and finish is one event, in order, and no poll is one.
func TestEventsTellEachStartAndFinishOnce(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), drainTime: 2 * time.Minute})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.events()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for range 20 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
		if st := h.stored().Status; st.CurrentReplicas == 2 && st.DecommissioningBroker == nil {
			break
		}
		h.simClock.Advance(pollInterval)
	}
	h.settle(3)
	h.cluster.SetMaintenanceDrainTime(time.Minute)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	h.rollOut(40, "redpanda:v25.2.1")
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 3 })
	h.settle(10)

	for _, poll := range []step.Kind{step.WaitForDrain, step.WaitForLeadershipDrain} {
		if n := h.counter("broker_operator_decisions_total", "kind", string(poll)); n < 2 {
			t.Errorf("%s decided %v times; the test needs a wait that lasts several polls", poll, n)
		}
	}
	events := h.events()
	want := []string{
		"Normal StartDecommission", "Normal FinishDecommission",
		"Normal StartRestart", "Normal RestartPod", "Normal FinishRestart",
		"Normal StartRestart", "Normal RestartPod", "Normal FinishRestart",
		"Normal ScaleUp",
	}
	if got := storyOf(t, events); !slices.Equal(got, want) {
		t.Errorf("events\n %q\nwant\n %q\nall:\n%s", got, want, strings.Join(events, "\n"))
	}
	for i, sub := range map[int]string{
		0: fmt.Sprintf("decommissioning broker %d (pod %s-2), scaling down from 3 to 2 brokers", ids[2], testName),
		1: fmt.Sprintf("broker %d (pod %s-2) has left the cluster", ids[2], testName),
		2: fmt.Sprintf("restarting broker %d (pod %s-1) to apply a change that needs a restart", ids[1], testName),
		4: "1 of 2 brokers still to restart",
		8: "scaling up from 2 to 3 brokers",
	} {
		if i >= len(events) || !strings.Contains(events[i], sub) {
			t.Errorf("event %d does not say %q:\n%s", i, sub, strings.Join(events, "\n"))
		}
	}
}

// A closed health gate is one Warning when it closes, however many polls it stays closed, and
// one Normal event when it opens, before the step it held back.
func TestAClosedGateIsToldWhenItClosesAndWhenItOpens(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.cluster.Down(0)
	h.events()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for range 4 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
		h.clock.Step(pollInterval)
	}
	closed := h.events()
	if got := storyOf(t, closed); !slices.Equal(got, []string{"Warning WaitForHealthyCluster"}) {
		t.Fatalf("events while the gate stayed closed for 4 polls: %q", closed)
	}
	if want := fmt.Sprintf("brokers down: [%d]", ids[0]); !strings.Contains(closed[0], want) {
		t.Errorf("%q does not say %q", closed[0], want)
	}

	h.cluster.Join(0)
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if got := storyOf(t, h.events()); !slices.Equal(got, []string{"Normal WaitForHealthyCluster", "Normal StartDecommission"}) {
		t.Errorf("events when the gate opened: %q", got)
	}
}

// An admin API that does not answer is one Warning, however often the reconcile is retried, and
// one Normal event when the wait ends.
func TestAnAdminAPIThatDoesNotAnswerIsToldOnce(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.cluster.SetFault(admintest.Fault{Refuse: true})
	h.events()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for range 3 {
		if _, err := h.reconcile(); err == nil {
			t.Fatal("a reconcile with the admin API down succeeded")
		}
	}
	if got := storyOf(t, h.events()); !slices.Equal(got, []string{"Warning WaitForAdminAPI"}) {
		t.Fatalf("events after 3 retries with the admin API down: %q", got)
	}
	h.cluster.SetFault(admintest.Fault{})
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if got := storyOf(t, h.events()); !slices.Equal(got, []string{"Normal WaitForAdminAPI", "Normal StartDecommission"}) {
		t.Errorf("events when the admin API answered again: %q", got)
	}
}
