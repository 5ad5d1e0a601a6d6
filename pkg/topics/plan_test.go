package topics

import (
	"maps"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestPlanConfig(t *testing.T) {
	for _, tc := range []struct {
		name          string
		spec, onTopic map[string]string
		managed       []string
		wantSet       map[string]string
		wantReset     []string
	}{
		{name: "equal: nothing", spec: map[string]string{"a": "1"}, onTopic: map[string]string{"a": "1", "b": "2"}, managed: []string{"a"}},
		{name: "a changed value is set", spec: map[string]string{"a": "1"}, onTopic: map[string]string{"a": "0"}, managed: []string{"a"}, wantSet: map[string]string{"a": "1"}},
		{name: "a key missing on the topic is set", spec: map[string]string{"a": "1"}, onTopic: map[string]string{}, wantSet: map[string]string{"a": "1"}},
		{name: "a managed key leaving the spec is reset", spec: map[string]string{}, onTopic: map[string]string{"a": "1"}, managed: []string{"a"}, wantReset: []string{"a"}},
		{name: "a key never managed is not reset", spec: map[string]string{}, onTopic: map[string]string{"a": "1"}},
		{name: "a managed key already gone is not reset", spec: map[string]string{}, onTopic: map[string]string{}, managed: []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planConfig(tc.spec, tc.onTopic, tc.managed)
			if !maps.Equal(p.set, tc.wantSet) && (len(p.set) != 0 || len(tc.wantSet) != 0) {
				t.Errorf("set %v, want %v", p.set, tc.wantSet)
			}
			if !slices.Equal(p.reset, tc.wantReset) {
				t.Errorf("reset %v, want %v", p.reset, tc.wantReset)
			}
		})
	}
}

func TestOwnerManagesThenIsOldestThenByName(t *testing.T) {
	at := func(name string, sec int) *v1alpha1.BrokerTopic {
		return &v1alpha1.BrokerTopic{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(int64(sec), 0))}}
	}
	if got := owner([]*v1alpha1.BrokerTopic{at("b", 2), at("c", 1), at("a", 3)}); got.Name != "c" {
		t.Fatalf("owner %s, want the oldest, c", got.Name)
	}
	if got := owner([]*v1alpha1.BrokerTopic{at("b", 1), at("a", 1)}); got.Name != "a" {
		t.Fatalf("owner %s, want a: equal ages are ordered by name", got.Name)
	}
	managing := at("young", 9)
	managing.Status.Origin = v1alpha1.TopicCreated
	if got := owner([]*v1alpha1.BrokerTopic{at("old", 1), managing}); got.Name != "young" {
		t.Fatalf("owner %s, want young: the resource that manages the topic keeps it", got.Name)
	}
}

func TestTopicNameDefaultsToMetadataName(t *testing.T) {
	bt := &v1alpha1.BrokerTopic{ObjectMeta: metav1.ObjectMeta{Name: "orders"}}
	if TopicName(bt) != "orders" {
		t.Fatal("unset spec.topicName is not metadata.name")
	}
	bt.Spec.TopicName = "Orders_v2"
	if TopicName(bt) != "Orders_v2" {
		t.Fatal("spec.topicName is not used")
	}
}
