package writebacktest

import (
	"fmt"
	"strconv"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	k8stesting "k8s.io/client-go/testing"
)

// FirstResourceVersion is the first resourceVersion StampServerFields hands out. It starts
// high so that it stays above the fake tracker's own list resourceVersions (one counter per
// resource, which only count the tracker's writes); a list resourceVersion must never look newer
// than the objects written after it.
const FirstResourceVersion = 1_000_000

// StampServerFields makes a fake clientset behave like an apiserver in the two ways the
// write-back store depends on: every create, update, patch and apply stores and returns the
// object with a new, increasing resourceVersion, and every create assigns a UID. Without it the
// fake keeps whatever the caller sent, usually an empty resourceVersion.
//
//	cs := fake.NewClientset()
//	writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
//
// Objects given to NewClientset are not stamped; create them through the client instead.
func StampServerFields(f *k8stesting.Fake, tracker k8stesting.ObjectTracker) {
	s := &stampingTracker{ObjectTracker: tracker}
	s.next.Store(FirstResourceVersion - 1)
	react := k8stesting.ObjectReaction(s)
	f.PrependReactor("*", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		switch action.(type) {
		case k8stesting.CreateActionImpl, k8stesting.UpdateActionImpl, k8stesting.PatchActionImpl:
			return react(action)
		}
		return false, nil, nil
	})
}

// stampingTracker sets the server-owned fields before the tracker stores an object.
type stampingTracker struct {
	k8stesting.ObjectTracker
	next atomic.Int64
}

func (s *stampingTracker) stamp(obj runtime.Object, create bool) (runtime.Object, error) {
	obj = obj.DeepCopyObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(strconv.FormatInt(s.next.Add(1), 10))
	if create && m.GetUID() == "" {
		m.SetUID(uuid.NewUUID())
	}
	return obj, nil
}

func (s *stampingTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	obj, err := s.stamp(obj, true)
	if err != nil {
		return err
	}
	return s.ObjectTracker.Create(gvr, obj, ns, opts...)
}

// Update also does what an apiserver does with the metadata of an update: it refuses a stale
// resourceVersion with a Conflict and keeps the stored UID.
func (s *stampingTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	sent, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	stored, err := s.ObjectTracker.Get(gvr, ns, sent.GetName())
	if err != nil {
		return err
	}
	sm, err := meta.Accessor(stored)
	if err != nil {
		return err
	}
	if sent.GetResourceVersion() != "" && sent.GetResourceVersion() != sm.GetResourceVersion() {
		return apierrors.NewConflict(gvr.GroupResource(), sent.GetName(),
			fmt.Errorf("resourceVersion %s is not the stored %s", sent.GetResourceVersion(), sm.GetResourceVersion()))
	}
	obj, err = s.stamp(obj, false)
	if err != nil {
		return err
	}
	if m, _ := meta.Accessor(obj); m.GetUID() == "" {
		m.SetUID(sm.GetUID())
	}
	return s.ObjectTracker.Update(gvr, obj, ns, opts...)
}

func (s *stampingTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	obj, err := s.stamp(obj, false)
	if err != nil {
		return err
	}
	return s.ObjectTracker.Patch(gvr, obj, ns, opts...)
}

func (s *stampingTracker) Apply(gvr schema.GroupVersionResource, applyConfiguration runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	m, err := meta.Accessor(applyConfiguration)
	if err != nil {
		return err
	}
	_, err = s.ObjectTracker.Get(gvr, ns, m.GetName())
	create := apierrors.IsNotFound(err)
	applyConfiguration, err = s.stamp(applyConfiguration, create)
	if err != nil {
		return err
	}
	return s.ObjectTracker.Apply(gvr, applyConfiguration, ns, opts...)
}
