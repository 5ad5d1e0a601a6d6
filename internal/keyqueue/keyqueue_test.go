package keyqueue

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A cluster's status writes queue nothing; a new generation, a deletion begun and a
// re-creation do, and a deletion calls deleted too.
func TestClusterEventsSkipStatusWrites(t *testing.T) {
	var got []string
	var gone []string
	h := ClusterEvents(func(key string) { got = append(got, key) }, func(ns, name string) { gone = append(gone, ns+"/"+name) })
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "kafka", UID: "a", Generation: 1}}
	status := bc.DeepCopy()
	status.Status.ReadyReplicas = 3
	spec := bc.DeepCopy()
	spec.Generation = 2
	deleting := bc.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{}
	again := bc.DeepCopy()
	again.UID = "b"

	h.OnAdd(bc, false)
	h.OnUpdate(bc, status)
	h.OnUpdate(bc, spec)
	h.OnUpdate(bc, deleting)
	h.OnUpdate(bc, again)
	h.OnDelete(bc)
	if want := slices.Repeat([]string{"team/kafka"}, 5); !slices.Equal(got, want) || !slices.Equal(gone, []string{"team/kafka"}) {
		t.Fatalf("queued %q, gone %q; want 5 queued (no status write) and one gone", got, gone)
	}
}

// SetFinalizer sends nothing when the finalizer is already as wanted, and writes a copy.
func TestSetFinalizerWritesOnlyAChange(t *testing.T) {
	bu := &v1alpha1.BrokerUser{ObjectMeta: metav1.ObjectMeta{Name: "app"}}
	writes := 0
	update := func(_ context.Context, obj *v1alpha1.BrokerUser, _ metav1.UpdateOptions) (*v1alpha1.BrokerUser, error) {
		writes++
		return obj, nil
	}
	got, err := SetFinalizer(context.Background(), bu, "f", true, update)
	if err != nil || !slices.Equal(got.Finalizers, []string{"f"}) || len(bu.Finalizers) != 0 {
		t.Fatalf("add: %v %v; the original %v must stay untouched", got.Finalizers, err, bu.Finalizers)
	}
	if _, err := SetFinalizer(context.Background(), got, "f", true, update); err != nil || writes != 1 {
		t.Fatalf("adding it again wrote: %d writes, %v", writes, err)
	}
	if got, _ = SetFinalizer(context.Background(), got, "f", false, update); len(got.Finalizers) != 0 || writes != 2 {
		t.Fatalf("remove: %v after %d writes", got.Finalizers, writes)
	}
}
