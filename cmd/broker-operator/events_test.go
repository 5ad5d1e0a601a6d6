package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
)

// correlatorAt is the operator's correlator on a fake clock.
func correlatorAt(clock *clocktesting.FakeClock) *record.EventCorrelator {
	opts := eventCorrelatorOptions()
	opts.Clock = clock
	return record.NewEventCorrelatorWithOptions(opts)
}

func clusterEvent(clock *clocktesting.FakeClock, eventType, reason, message string) *corev1.Event {
	now := metav1.NewTime(clock.Now())
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("example.%x", now.UnixNano())},
		InvolvedObject: corev1.ObjectReference{
			Kind: "BrokerCluster", APIVersion: "brokers.broker-operator.dev/v1alpha1",
			Namespace: "ns", Name: "example", UID: "uid-1",
		},
		Source:         corev1.EventSource{Component: "broker-operator"},
		Type:           eventType,
		Reason:         reason,
		Message:        message,
		Count:          1,
		FirstTimestamp: now,
		LastTimestamp:  now,
	}
}

// TestEventBudgetTellsALargeOperation: a scale-down and a rollout of 50 brokers, 200 decisions
// on one BrokerCluster within a minute, each reach the apiserver as its own Event with its own
// message; client-go's default would have kept 25 of them.
func TestEventBudgetTellsALargeOperation(t *testing.T) {
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := correlatorAt(clock)
	reasons := []string{"StartDecommission", "FinishDecommission", "StartRestart", "FinishRestart"}
	sent := 0
	for _, reason := range reasons {
		for broker := range 50 {
			clock.Step(250 * time.Millisecond)
			msg := fmt.Sprintf("%s of broker %d (pod example-%d)", reason, 100+broker, broker)
			res, err := c.EventCorrelate(clusterEvent(clock, corev1.EventTypeNormal, reason, msg))
			if err != nil {
				t.Fatal(err)
			}
			if res.Skip {
				t.Fatalf("event %d (%s) was dropped by the spam filter", sent, msg)
			}
			if res.Patch != nil || res.Event.Message != msg {
				t.Fatalf("event %d (%s) became %q (patch %s), want a new Event of its own", sent, msg, res.Event.Message, res.Patch)
			}
			sent++
		}
	}
	if elapsed := time.Duration(sent) * 250 * time.Millisecond; elapsed > time.Minute {
		t.Fatalf("the story took %s; the scenario is 200 events within a minute", elapsed)
	}
}

// TestEventBudgetStillThrottlesALoop: a BrokerCluster that repeats one event in a tight loop is
// counted on one Event and then throttled to the refill rate; a loop whose message changes is
// folded into one aggregate Event. After a quiet spell the full budget is back.
func TestEventBudgetStillThrottlesALoop(t *testing.T) {
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := correlatorAt(clock)
	burst := eventCorrelatorOptions().BurstSize

	passed, creates := 0, 0
	for range 10 * burst {
		res, err := c.EventCorrelate(clusterEvent(clock, corev1.EventTypeWarning, "AdminAPIUnreachable", "the admin API of broker 101 does not answer"))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Skip {
			passed++
			if res.Patch == nil {
				creates++
			}
		}
	}
	if passed != burst || creates != 1 {
		t.Fatalf("a tight loop of one event wrote %d times (%d creates), want %d writes of which 1 create", passed, creates, burst)
	}
	clock.Step(10 * time.Second)
	if res, _ := c.EventCorrelate(clusterEvent(clock, corev1.EventTypeWarning, "AdminAPIUnreachable", "the admin API of broker 101 does not answer")); res.Skip {
		t.Error("after 10 s the refill let no event through, want one")
	}
	if res, _ := c.EventCorrelate(clusterEvent(clock, corev1.EventTypeWarning, "AdminAPIUnreachable", "the admin API of broker 101 does not answer")); !res.Skip {
		t.Error("a second event in the same 10 s passed, want it throttled")
	}

	// Normal events have a budget of their own; here a message that changes every time.
	var last *corev1.Event
	for i := range 100 {
		res, err := c.EventCorrelate(clusterEvent(clock, corev1.EventTypeNormal, "Retrying", fmt.Sprintf("attempt %d failed", i)))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Skip {
			last = res.Event
		}
	}
	if last == nil || !strings.HasPrefix(last.Message, "(combined from similar events)") {
		t.Errorf("a loop of changing messages ended with %+v, want one aggregate Event", last)
	}

	// An empty budget is full again after 43 minutes, as eventCorrelatorOptions says.
	clock.Step(43 * time.Minute)
	for i := range burst {
		res, _ := c.EventCorrelate(clusterEvent(clock, corev1.EventTypeWarning, "DrainStalled", fmt.Sprintf("drain %d stalled", i%8)))
		if res.Skip {
			t.Fatalf("event %d after the budget's refill time was dropped, want the full budget back", i)
		}
	}
}
