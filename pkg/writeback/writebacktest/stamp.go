package writebacktest

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
)

// FirstResourceVersion is the first resourceVersion StampServerFields hands out. It starts
// high so that it stays above the fake tracker's own list resourceVersions (one counter per
// resource, which only count the tracker's writes); a list resourceVersion must never look newer
// than the objects written after it.
const FirstResourceVersion = 1_000_000

// StampServerFields makes a fake clientset behave like an apiserver in the ways the write-back
// store depends on: every create, update, patch, apply and delete gets a new resourceVersion
// from one increasing counter, in the order the watch sees them; objects are stored and
// returned with it, and a delete event carries it; a list carries the last one handed out,
// and a watch from it starts right after the list; every create assigns a UID; an update with
// a stale resourceVersion fails with a Conflict. Without it the fake keeps whatever the caller
// sent, usually an empty resourceVersion.
//
// It returns the tracker to use for further reactors, for example a Holder's:
//
//	cs := fake.NewClientset()
//	tracker := writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
//	cs.PrependWatchReactor("configmaps", writebacktest.WatchReactor(tracker, holder.Wrap))
//
// Objects given to NewClientset are not stamped; create them through the client instead.
func StampServerFields(f *k8stesting.Fake, tracker k8stesting.ObjectTracker) k8stesting.ObjectTracker {
	s := &stampingTracker{ObjectTracker: tracker, deleteRVs: map[types.UID]string{}, listRVs: map[string]string{}, watches: map[*pacedWatch]struct{}{}}
	s.room = sync.NewCond(&s.mu)
	s.next.Store(FirstResourceVersion - 1)
	react := k8stesting.ObjectReaction(s)
	f.PrependReactor("*", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		switch action.(type) {
		case k8stesting.CreateActionImpl, k8stesting.UpdateActionImpl, k8stesting.PatchActionImpl, k8stesting.DeleteActionImpl, k8stesting.ListActionImpl:
			return react(action)
		}
		return false, nil, nil
	})
	f.PrependWatchReactor("*", WatchReactor(s, func(w watch.Interface) watch.Interface { return w }))
	return s
}

// stampingTracker sets the server-owned fields before the tracker stores an object. mu makes
// each stamp and the store that emits its watch event one step, so the watch sees
// resourceVersions in increasing order.
type stampingTracker struct {
	k8stesting.ObjectTracker
	mu        sync.Mutex
	next      atomic.Int64
	deleteRVs map[types.UID]string // resourceVersion of each delete, for its watch event
	listRVs   map[string]string    // the tracker's own resourceVersion of each list, by the one handed out
	// watches are the tracker's watches handed out and not stopped; room is signalled
	// whenever one of them is read from or stopped (see pace.go).
	watches map[*pacedWatch]struct{}
	room    *sync.Cond
}

// begin starts a write: it waits until every open watch can take the write's event, and
// returns the function that ends it, which gives back the resourceVersion if the tracker
// refused the write (AlreadyExists, NotFound, Conflict): a refused write is not a write, and
// a list must not run ahead of every event. Callers hold s.mu.
func (s *stampingTracker) begin() (end func(error) error) {
	s.awaitRoomLocked()
	prev := s.next.Load()
	return func(err error) error {
		if err != nil {
			s.next.Store(prev)
		}
		return err
	}
}

// stamp returns a copy of obj with a new resourceVersion (and a UID when creating).
func (s *stampingTracker) stamp(obj runtime.Object, create bool) (runtime.Object, error) {
	obj = obj.DeepCopyObject()
	return obj, s.stampInPlace(obj, create)
}

func (s *stampingTracker) stampInPlace(obj runtime.Object, create bool) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	m.SetResourceVersion(strconv.FormatInt(s.next.Add(1), 10))
	if create && m.GetUID() == "" {
		m.SetUID(uuid.NewUUID())
	}
	return nil
}

func (s *stampingTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := s.begin()
	obj, err := s.stamp(obj, true)
	if err != nil {
		return end(err)
	}
	return end(s.ObjectTracker.Create(gvr, obj, ns, opts...))
}

// Update also does what an apiserver does with the metadata of an update: it refuses a stale
// resourceVersion with a Conflict and keeps the stored UID.
func (s *stampingTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
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
	end := s.begin()
	obj, err = s.stamp(obj, false)
	if err != nil {
		return end(err)
	}
	if m, _ := meta.Accessor(obj); m.GetUID() == "" {
		m.SetUID(sm.GetUID())
	}
	return end(s.ObjectTracker.Update(gvr, obj, ns, opts...))
}

// Patch stamps in place: the fake's patch reaction hands over its own copy and returns that
// same object to the caller.
func (s *stampingTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := s.begin()
	if err := s.stampInPlace(obj, false); err != nil {
		return end(err)
	}
	return end(s.ObjectTracker.Patch(gvr, obj, ns, opts...))
}

func (s *stampingTracker) Apply(gvr schema.GroupVersionResource, applyConfiguration runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := meta.Accessor(applyConfiguration)
	if err != nil {
		return err
	}
	_, err = s.ObjectTracker.Get(gvr, ns, m.GetName())
	create := apierrors.IsNotFound(err)
	end := s.begin()
	applyConfiguration, err = s.stamp(applyConfiguration, create)
	if err != nil {
		return end(err)
	}
	return end(s.ObjectTracker.Apply(gvr, applyConfiguration, ns, opts...))
}

// Delete gives the delete its own resourceVersion, which the watch event will carry.
func (s *stampingTracker) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, err := s.ObjectTracker.Get(gvr, ns, name)
	if err != nil {
		return err
	}
	m, err := meta.Accessor(stored)
	if err != nil {
		return err
	}
	if len(opts) > 0 && opts[0].Preconditions != nil && opts[0].Preconditions.UID != nil && *opts[0].Preconditions.UID != m.GetUID() {
		return apierrors.NewConflict(gvr.GroupResource(), name,
			fmt.Errorf("precondition failed: UID in precondition: %s, UID in object meta: %s", *opts[0].Preconditions.UID, m.GetUID()))
	}
	end := s.begin()
	s.deleteRVs[m.GetUID()] = strconv.FormatInt(s.next.Add(1), 10)
	if err := s.ObjectTracker.Delete(gvr, ns, name, opts...); err != nil {
		delete(s.deleteRVs, m.GetUID())
		return end(err)
	}
	return nil
}

// List hands out the resourceVersion of the last write as the list's, as an apiserver does:
// the list holds every write up to it and none after. It remembers the tracker's own, which a
// watch from this list needs.
func (s *stampingTracker) List(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns string, opts ...metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.ObjectTracker.List(gvr, gvk, ns, opts...)
	if err != nil {
		return nil, err
	}
	if lm, err := meta.ListAccessor(list); err == nil {
		stamped := strconv.FormatInt(s.next.Load(), 10)
		s.listRVs[stamped] = lm.GetResourceVersion()
		lm.SetResourceVersion(stamped)
	}
	return list, nil
}

// Watch starts a watch from a list's resourceVersion where the tracker's list ended, and
// rewrites delete events to carry the delete's resourceVersion.
func (s *stampingTracker) Watch(gvr schema.GroupVersionResource, ns string, opts ...metav1.ListOptions) (watch.Interface, error) {
	if len(opts) == 1 {
		s.mu.Lock()
		if own, ok := s.listRVs[opts[0].ResourceVersion]; ok {
			opts = []metav1.ListOptions{*opts[0].DeepCopy()}
			opts[0].ResourceVersion = own
		}
		s.mu.Unlock()
	}
	w, err := s.ObjectTracker.Watch(gvr, ns, opts...)
	if err != nil {
		return nil, err
	}
	return s.pace(w), nil
}

// rewriteLocked gives a delete event the delete's own resourceVersion. Callers hold s.mu.
func (s *stampingTracker) rewriteLocked(ev watch.Event) watch.Event {
	if ev.Type != watch.Deleted {
		return ev
	}
	m, err := meta.Accessor(ev.Object)
	if err != nil {
		return ev
	}
	if rv, ok := s.deleteRVs[m.GetUID()]; ok {
		m.SetResourceVersion(rv)
	}
	return ev
}
