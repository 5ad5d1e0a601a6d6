package users

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The seed's failure, for users: right after the controller records that it created the user,
// its informer still shows the resource without that record. A reconcile reading the informer
// would take the user for someone else's and stop with AdoptionRequired (and drop the
// finalizer); through the write-back overlay it reads its own status write and stays Synced.
func TestReadsItsOwnStatusWhileTheInformerLags(t *testing.T) {
	h := newHarness(t)
	h.create(user("app"))
	h.mustSync("app") // creates the user; its writes stay held from the informer
	if err := h.holder.AwaitPending(h.ctx, 1); err != nil {
		t.Fatal(err)
	}
	obj, _, _ := h.c.caches[""].userInformer.GetIndexer().GetByKey(ns + "/app")
	if got := obj.(*v1alpha1.BrokerUser).Status.Origin; got != "" {
		t.Fatalf("the informer already shows origin %q: the test has no lag", got)
	}

	h.mustSync("app")
	h.wantReady("app", metav1.ConditionTrue, ReasonSynced)
	wantEvents(t, h.drainEvents(), EventSecretCreated, EventUserCreated)
}
