package controllertest

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// Client is the part of a generated typed client a test writes with.
type Client[T metav1.Object] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// UserAnnotation marks the writes Kubectl.Update makes, which a test of the RBAC a controller
// needs tells from the controller's own.
const UserAnnotation = "test"

// Kubectl writes resources of one kind as a user with kubectl would, through a fake clientset,
// and waits until the controller's informer (Store) shows each write.
type Kubectl[T metav1.Object] struct {
	T      testing.TB
	Ctx    context.Context
	Holder *writebacktest.Holder
	Client Client[T]
	Store  Getter
	// Now stamps deletionTimestamp.
	Now func() time.Time
}

func (k Kubectl[T]) Create(obj T) {
	k.T.Helper()
	created, err := k.Client.Create(k.Ctx, obj, metav1.CreateOptions{})
	if err != nil {
		k.T.Fatal(err)
	}
	k.await(created)
}

// Update changes the resource as mutate says, marked with UserAnnotation.
func (k Kubectl[T]) Update(name string, mutate func(T)) {
	k.T.Helper()
	obj := k.Get(name)
	mutate(obj)
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[UserAnnotation] = "user"
	obj.SetAnnotations(a)
	updated, err := k.Client.Update(k.Ctx, obj, metav1.UpdateOptions{})
	if err != nil {
		k.T.Fatal(err)
	}
	k.await(updated)
}

// Delete does what the apiserver does on a delete: with finalizers it sets deletionTimestamp,
// without it removes the object. The fake clientset knows nothing of finalizers.
func (k Kubectl[T]) Delete(name string) {
	k.T.Helper()
	obj := k.Get(name)
	if len(obj.GetFinalizers()) == 0 {
		if err := k.Client.Delete(k.Ctx, name, metav1.DeleteOptions{}); err != nil {
			k.T.Fatal(err)
		}
		AwaitGone(k.T, k.Ctx, k.Holder, k.Store, obj.GetNamespace()+"/"+name)
		return
	}
	k.Update(name, func(obj T) { obj.SetDeletionTimestamp(&metav1.Time{Time: k.Now()}) })
}

// Get reads the resource from the fake apiserver: the truth, not a cache.
func (k Kubectl[T]) Get(name string) T {
	k.T.Helper()
	obj, err := k.Client.Get(k.Ctx, name, metav1.GetOptions{})
	if err != nil {
		k.T.Fatal(err)
	}
	return obj
}

func (k Kubectl[T]) await(obj T) {
	k.T.Helper()
	AwaitInformer(k.T, k.Ctx, k.Holder, k.Store, obj.GetNamespace()+"/"+obj.GetName(), obj.GetResourceVersion())
}
