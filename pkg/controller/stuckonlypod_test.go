package controller

import (
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// A cluster of one broker whose restart onto an image that cannot be pulled left its only pod
// unable to start has no broker to answer the admin API; the fix still heals it: the outdated
// pod is replaced, as in a larger cluster, with nothing to ask the brokers first (there is no
// other broker to be up or draining).
func TestABadImageOnASingleBrokerHealsWithItsFix(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(1)
	good := h.stored().Spec.Image
	h.badImage = "redpanda:v25.2.9"
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = h.badImage })
	stuck := false
	for range 15 {
		h.reconcileAfterPoll()
		if pods := h.pods(); len(pods) == 1 && pods[0].Spec.Containers[0].Image == h.badImage {
			if _, stuck = brokerpod.Stuck(&pods[0], h.clock.Now()); stuck {
				break
			}
		}
	}
	if !stuck {
		t.Fatalf("the only pod never ran the bad image and got stuck: pods %+v", h.pods())
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = good })
	h.rollOut(30, good)
	if !strings.Contains(strings.Join(h.events(), "\n"), "ReplaceStuckPod") {
		t.Error("the stuck pod was not replaced by the operator")
	}
}
