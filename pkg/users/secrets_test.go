package users

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

var secretsGVR = corev1.SchemeGroupVersion.WithResource("secrets")

// secretMeta writes a Secret's metadata, with a new resourceVersion, as the apiserver would
// serve it to the controller's metadata watch; deleted removes it.
func (h *harness) secretMeta(name string, version int, deleted bool) {
	h.t.Helper()
	tracker := h.meta.Tracker()
	if deleted {
		if err := tracker.Delete(secretsGVR, ns, name); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	m := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: strconv.Itoa(version)},
	}
	if _, err := h.meta.Resource(secretsGVR).Namespace(ns).Get(h.ctx, name, metav1.GetOptions{}); err == nil {
		if err := tracker.Update(secretsGVR, m, ns); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	if err := tracker.Add(m); err != nil {
		h.t.Fatal(err)
	}
}

// queuedUntil takes keys off the controller's queue until want comes, and returns those that
// came before it.
func (h *harness) queuedUntil(want string) []string {
	h.t.Helper()
	var before []string
	err := wait.PollUntilContextTimeout(h.ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		for h.c.queue.Len() > 0 {
			key, _ := h.c.queue.Get()
			h.c.queue.Done(key)
			if key == want {
				return true, nil
			}
			before = append(before, key)
		}
		return false, nil
	})
	if err != nil {
		h.t.Fatalf("%s was never queued (queued instead: %v)", want, before)
	}
	return before
}

// A password Secret that is created, changed or deleted queues the BrokerUsers that read it,
// and only those, without waiting for the resync: a rotation is set at once.
func TestAChangedSecretQueuesTheUsersThatReadIt(t *testing.T) {
	h := newHarness(t)
	named := user("named")
	named.Spec.Authentication = &v1alpha1.UserAuthentication{Password: &v1alpha1.UserPassword{ValueFrom: v1alpha1.PasswordSource{
		SecretKeyRef: v1alpha1.SecretKeyReference{Name: "named-password"}}}}
	h.create(named)
	h.create(user("generated"))
	seen := h.queuedUntil(ns + "/named")
	if !slices.Contains(seen, ns+"/generated") {
		h.queuedUntil(ns + "/generated")
	}

	for _, step := range []struct {
		what   string
		secret string
		change func(name string)
		want   string
	}{
		{"the named Secret created", "named-password", func(n string) { h.secretMeta(n, 1, false) }, ns + "/named"},
		{"the named Secret rotated", "named-password", func(n string) { h.secretMeta(n, 2, false) }, ns + "/named"},
		{"the generated Secret created", "generated-credentials", func(n string) { h.secretMeta(n, 3, false) }, ns + "/generated"},
		{"the generated Secret deleted", "generated-credentials", func(n string) { h.secretMeta(n, 0, true) }, ns + "/generated"},
		{"the named Secret deleted", "named-password", func(n string) { h.secretMeta(n, 0, true) }, ns + "/named"},
	} {
		// A Secret no BrokerUser reads comes first: events arrive in order, so whatever it
		// queued is taken before the key the step wants.
		h.secretMeta("unrelated", 10, false)
		step.change(step.secret)
		if got := h.queuedUntil(step.want); len(got) > 0 {
			t.Errorf("%s: queued %v besides %s", step.what, got, step.want)
		}
		h.secretMeta("unrelated", 0, true)
	}
}

// The watch keeps nothing of a Secret but its name and version: no data, labels or
// annotations sit in the operator's memory.
func TestTheSecretWatchKeepsOnlyNames(t *testing.T) {
	h := newHarness(t)
	m := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: ns, ResourceVersion: "7",
			Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"password\":\"c2VjcmV0\"}}"}},
	}
	if err := h.meta.Tracker().Add(m); err != nil {
		t.Fatal(err)
	}
	store := h.c.caches[""].secretInformer.GetStore()
	var got *metav1.PartialObjectMetadata
	err := wait.PollUntilContextTimeout(h.ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		obj, ok, _ := store.GetByKey(ns + "/s")
		if ok {
			got = obj.(*metav1.PartialObjectMetadata)
		}
		return ok, nil
	})
	if err != nil {
		t.Fatal("the Secret never reached the watch")
	}
	if got.Name != "s" || got.ResourceVersion != "7" || len(got.Labels) > 0 || len(got.Annotations) > 0 || len(got.ManagedFields) > 0 {
		t.Fatalf("the watch keeps %+v; want only the name and resourceVersion", got.ObjectMeta)
	}
}
