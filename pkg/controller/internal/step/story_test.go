package step

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Whether a step is news is read from the status alone, so a new leader, whose first reconcile
// reads a status that already shows the wait, does not tell it again.
func TestNewsIsJudgedFromStatus(t *testing.T) {
	degraded := func(reason string) *v1alpha1.BrokerClusterStatus {
		st := &v1alpha1.BrokerClusterStatus{CurrentReplicas: 3}
		status := metav1.ConditionTrue
		if reason == ReasonAsExpected {
			status = metav1.ConditionFalse
		}
		st.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionDegraded, Status: status, Reason: reason}}
		return st
	}
	tests := []struct {
		name          string
		kind          Kind
		before, after *v1alpha1.BrokerClusterStatus
		news          bool
		ended         Kind
	}{
		{"the gate closes", WaitForHealthyCluster, degraded(ReasonAsExpected), degraded(ReasonClusterUnhealthy), true, ""},
		{"the gate stays closed", WaitForHealthyCluster, degraded(ReasonClusterUnhealthy), degraded(ReasonClusterUnhealthy), false, ""},
		{"the gate opens", StartDecommission, degraded(ReasonClusterUnhealthy), degraded(ReasonAsExpected), true, WaitForHealthyCluster},
		{"the admin API stops answering while the gate is closed", WaitForAdminAPI, degraded(ReasonClusterUnhealthy), degraded(ReasonAdminAPIUnavailable), true, WaitForHealthyCluster},
		{"the admin API still does not answer", WaitForAdminAPI, degraded(ReasonAdminAPIUnavailable), degraded(ReasonAdminAPIUnavailable), false, ""},
		{"a drain polled", WaitForDrain, degraded(ReasonAsExpected), degraded(ReasonAsExpected), false, ""},
		{"a stalled drain moves again", WaitForDrain, degraded(ReasonDrainStalled), degraded(ReasonAsExpected), false, WaitForDrain},
		{"leadership still moving", WaitForLeadershipDrain, degraded(ReasonAsExpected), degraded(ReasonAsExpected), false, ""},
		{"a restart finishes", FinishRestart, degraded(ReasonAsExpected), degraded(ReasonAsExpected), true, ""},
		{"a step the story does not name, changing nothing", Kind("SomeOtherWait"), degraded(ReasonAsExpected), degraded(ReasonAsExpected), false, ""},
		{"a step the story does not name, changing a condition", Kind("SomeOtherStep"), degraded(ReasonAsExpected), degraded("SomethingElse"), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsNews(Step{Kind: tt.kind}, tt.before, tt.after); got != tt.news {
				t.Errorf("isNews = %t, want %t", got, tt.news)
			}
			ended, _, ok := WaitEnded(tt.before, tt.after)
			if ended != tt.ended || ok != (tt.ended != "") {
				t.Errorf("waitEnded = %q, %t, want %q", ended, ok, tt.ended)
			}
		})
	}
	if EventType(WaitForHealthyCluster) != corev1.EventTypeWarning {
		t.Error("a closed gate is not a Warning")
	}
}
