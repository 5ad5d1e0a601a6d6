package topics

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The seed's failure, for topics: right after the controller records that it created the
// topic, its informer still shows the resource without that record. A reconcile reading the
// informer would take the topic for someone else's and stop with AdoptionRequired; through the
// write-back overlay it reads its own status write and stays Synced.
func TestReadsItsOwnStatusWhileTheInformerLags(t *testing.T) {
	h := newHarness(t)
	h.create(topic("orders", 3, 0))
	h.mustSync("orders") // creates the topic; its status writes stay held from the informer
	if err := h.holder.AwaitPending(h.ctx, 1); err != nil {
		t.Fatal(err)
	}
	obj, _, _ := h.c.caches[""].topicInformer.GetIndexer().GetByKey(ns + "/orders")
	if got := obj.(*v1alpha1.BrokerTopic).Status.Origin; got != "" {
		t.Fatalf("the informer already shows origin %q: the test has no lag", got)
	}

	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionTrue, ReasonSynced)
	wantEvents(t, h.drainEvents(), EventTopicCreated)
}
