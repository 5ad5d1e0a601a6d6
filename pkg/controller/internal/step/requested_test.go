package step

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// A pod whose restart was asked for (an eviction the webhook turned away) is restarted though
// it runs the current template, and before the outdated pods of a rollout under way.
func TestARequestedRestartGoesFirst(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "redpanda"}, Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 3}}
	pod := func(ordinal int, revision string, annotations map[string]string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("redpanda-%d", ordinal), UID: types.UID(fmt.Sprintf("u%d", ordinal)),
			Annotations: map[string]string{brokerpod.AnnotationTemplateHash: revision}}}
		for k, v := range annotations {
			p.Annotations[k] = v
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		return p
	}
	asked := map[string]string{brokerpod.AnnotationRestartRequested: "eviction of pod redpanda-0"}
	now := time.Now()

	steady := ObserveRollout(bc, "new", map[int]*corev1.Pod{0: pod(0, "new", asked), 1: pod(1, "new", nil), 2: pod(2, "new", nil)}, nil, now)
	if steady.Outdated != 1 || steady.NextPod != "redpanda-0" || steady.Updated != 3 {
		t.Errorf("steady cluster with pod 0's restart asked for: outdated %d, next %q, updated %d; want 1, redpanda-0, 3", steady.Outdated, steady.NextPod, steady.Updated)
	}

	rolling := ObserveRollout(bc, "new", map[int]*corev1.Pod{0: pod(0, "new", asked), 1: pod(1, "old", nil), 2: pod(2, "old", nil)}, nil, now)
	if rolling.Outdated != 3 || rolling.NextPod != "redpanda-0" {
		t.Errorf("rollout under way: outdated %d, next %q; want 3, the asked-for redpanda-0 first", rolling.Outdated, rolling.NextPod)
	}
	if got := rolling.Order; len(got) != 3 || !got[0].Requested || got[0].RequestedBy != "eviction of pod redpanda-0" || got[1].Pod != "redpanda-2" || got[2].Pod != "redpanda-1" {
		t.Errorf("order %+v: want redpanda-0 (asked for), then highest ordinal first", got)
	}

	none := ObserveRollout(bc, "new", map[int]*corev1.Pod{0: pod(0, "new", nil), 1: pod(1, "new", nil), 2: pod(2, "new", nil)}, nil, now)
	if none.Outdated != 0 || none.NextPod != "" {
		t.Errorf("nothing asked for: outdated %d, next %q", none.Outdated, none.NextPod)
	}
}
