package brokers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestClusterConfigDueForADerivedPropertyNotManagedYet(t *testing.T) {
	applied := metav1.Condition{Type: v1alpha1.ConditionConfigApplied, Status: metav1.ConditionTrue, Reason: ReasonConfigApplied}
	rejected := metav1.Condition{Type: v1alpha1.ConditionConfigApplied, Status: metav1.ConditionFalse, Reason: ReasonConfigRejected}
	for _, tc := range []struct {
		name    string
		managed []string
		cond    metav1.Condition
		want    bool
	}{
		// A status from before the operator derived enable_sasl from the spec: checked once.
		{"derived property not managed", []string{"log_segment_size"}, applied, true},
		{"everything managed and applied", []string{"enable_sasl", "sasl_mechanisms", "log_segment_size"}, applied, false},
		// A refused write keeps managed as it was: tried again only when the spec changes.
		{"refused", []string{"log_segment_size"}, rejected, false},
	} {
		bc := newBrokerCluster(3)
		bc.Generation = 2
		bc.Spec.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{}}
		bc.Spec.ClusterConfig = map[string]string{"log_segment_size": "268435456"}
		bc.Status.ClusterConfig = &v1alpha1.ClusterConfigStatus{ObservedGeneration: 2, Managed: tc.managed}
		bc.Status.Conditions = []metav1.Condition{tc.cond}
		if got := ClusterConfigDue(bc, ""); got != tc.want {
			t.Errorf("%s: clusterConfigDue = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Every property left the spec, and the brokers wait for a restart for their reset: the check
// goes on until they have restarted, or the rollout would never hear of it.
func TestClusterConfigDueWhileAResetWaitsForARestart(t *testing.T) {
	bc := newBrokerCluster(3)
	bc.Generation = 2
	pending := metav1.Condition{Type: v1alpha1.ConditionConfigApplied, Status: metav1.ConditionFalse, Reason: ReasonConfigRestartPending}
	bc.Status.Conditions = []metav1.Condition{pending}
	bc.Status.ClusterConfig = &v1alpha1.ClusterConfigStatus{ObservedGeneration: 2, PendingRestart: []string{"cloud_storage_enabled"}, BrokersPendingRestart: []int32{1}}
	if !ClusterConfigDue(bc, "") {
		t.Error("a reset waiting for a restart is not checked again")
	}
	bc.Status.ClusterConfig = &v1alpha1.ClusterConfigStatus{ObservedGeneration: 2}
	if ClusterConfigDue(bc, "") {
		t.Error("a cluster with no property, none managed and none pending, is checked")
	}
}
