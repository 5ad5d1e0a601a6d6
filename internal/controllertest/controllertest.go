// Package controllertest holds the test helpers the BrokerTopic and BrokerUser controllers'
// tests share: waiting for an informer to show a write, reading the events a reconcile
// recorded, and the permissions the ClusterRole grants.
package controllertest

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// Getter reads a key from an informer's store, as cache.Store.GetByKey does.
type Getter func(key string) (any, bool, error)

// AwaitInformer waits until get holds key at resourceVersion rv or later, releasing the watch
// events holder keeps meanwhile: a condition polled, not a sleep.
func AwaitInformer(t testing.TB, ctx context.Context, holder *writebacktest.Holder, get Getter, key, rv string) {
	t.Helper()
	want, _ := strconv.ParseUint(rv, 10, 64)
	err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		holder.ReleaseAll()
		obj, ok, _ := get(key)
		if !ok {
			return false, nil
		}
		got, _ := strconv.ParseUint(obj.(metav1.Object).GetResourceVersion(), 10, 64)
		return got >= want, nil
	})
	if err != nil {
		t.Fatalf("the informer never showed %s at resourceVersion %s: %v", key, rv, err)
	}
}

// AwaitGone waits until get no longer holds key.
func AwaitGone(t testing.TB, ctx context.Context, holder *writebacktest.Holder, get Getter, key string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		holder.ReleaseAll()
		_, ok, _ := get(key)
		return !ok, nil
	})
	if err != nil {
		t.Fatalf("the informer still shows %s: %v", key, err)
	}
}

// DrainEvents returns the events recorded since the last call.
func DrainEvents(r *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// WantEvents fails the test unless got are events with these reasons, in this order.
func WantEvents(t testing.TB, got []string, reasons ...string) {
	t.Helper()
	if len(got) != len(reasons) {
		t.Fatalf("events %q, want reasons %q", got, reasons)
	}
	for i, r := range reasons {
		if !strings.Contains(got[i], " "+r+" ") {
			t.Fatalf("event %d is %q, want reason %s", i, got[i], r)
		}
	}
}

// Granted are the permissions of the ClusterRole in the file at path, each as Permission
// writes it.
func Granted(t testing.TB, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	granted := map[string]bool{}
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					granted[Permission(g, res, v)] = true
				}
			}
		}
	}
	return granted
}

// Permission names a verb on a resource of a group: "group/resource[/subresource]:verb".
func Permission(group, resource, verb string) string { return group + "/" + resource + ":" + verb }

// Used is the permission a client action needs.
func Used(a k8stesting.Action) string {
	resource := a.GetResource().Resource
	if sub := a.GetSubresource(); sub != "" {
		resource += "/" + sub
	}
	return Permission(a.GetResource().Group, resource, a.GetVerb())
}

// AwaitReason waits until the condition of type cond, as conditions reads it from the fake
// apiserver, has reason.
func AwaitReason(t testing.TB, ctx context.Context, conditions func(context.Context) ([]metav1.Condition, error), cond, reason string) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		cs, err := conditions(ctx)
		if err != nil {
			return false, nil
		}
		if c := meta.FindStatusCondition(cs, cond); c != nil {
			last = c.Reason
		}
		return last == reason, nil
	})
	if err != nil {
		t.Fatalf("%s reason %q, want %q: %v", cond, last, reason, err)
	}
}
