package writeback

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

var freeRunSteps = flag.Int("writeback.schedules", 1000, "writes (each followed by reads through every path) in the free-running test with a real informer")

// ownState is what the model knows of one name that a single writer owns: nobody else writes
// it, so after each of the writer's writes every read must show exactly that write.
type ownState struct {
	obj *corev1.ConfigMap // nil: deleted, or never created
}

// A real SharedIndexInformer runs freely beside the writes, its watch delayed by a random
// 0-2ms per event, over 300 objects that another actor keeps updating. Writers create, update
// and delete names they alone own, and after each write read it back through Get, List,
// ByIndex and the namespaced lister, which must all show exactly that write (or its absence);
// readers check that no key goes back and none appears twice. At the end, once the informer
// has delivered every event, the overlay must be empty and reads must match the server.
func TestFreeRunningInformerAgainstModel(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d, %d steps", seed, *freeRunSteps)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	cs := fake.NewClientset()
	tracker := writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
	var delayMu sync.Mutex
	delayRand := rand.New(rand.NewPCG(uint64(seed), 1))
	delay := func() time.Duration {
		delayMu.Lock()
		defer delayMu.Unlock()
		return time.Duration(delayRand.IntN(2000)) * time.Microsecond
	}
	var watches writebacktest.Watches
	cs.PrependWatchReactor("configmaps", watches.Reactor(writebacktest.WatchReactor(tracker, func(w watch.Interface) watch.Interface {
		return writebacktest.NewDelayingWatch(w, delay, nil)
	})))

	const background = 300
	for i := range background {
		cm := coloredConfigMap(fmt.Sprintf("bg-%03d", i), "", "red")
		cm.UID = ""
		if _, err := cs.CoreV1().ConfigMaps(testNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	informer := informers.NewSharedInformerFactory(cs, 0).Core().V1().ConfigMaps().Informer()
	if err := informer.AddIndexers(cache.Indexers{byColor: colorIndex}); err != nil {
		t.Fatal(err)
	}
	overlay := NewOverlay("configmaps", informer.GetIndexer(), Options{})
	handled := newHandledUpTo()
	if _, err := overlay.observe(informer, handled.after); err != nil {
		t.Fatal(err)
	}
	runInformer(ctx, t, informer, &watches)
	lister := corelisters.NewConfigMapLister(overlay)
	client := Wrap(cs.CoreV1().ConfigMaps(testNamespace), testNamespace, overlay)

	// Another actor updates background objects all along: the informer's progress moves with
	// events for keys that have no entry.
	var others sync.WaitGroup
	stopOthers := make(chan struct{})
	others.Go(func() {
		r := rand.New(rand.NewPCG(uint64(seed), 2))
		for range *freeRunSteps {
			select {
			case <-stopOthers:
				return
			default:
			}
			name := fmt.Sprintf("bg-%03d", r.IntN(background))
			cur, err := cs.CoreV1().ConfigMaps(testNamespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			cur.Data = map[string]string{"v": strconv.Itoa(r.IntN(1000))}
			_, _ = cs.CoreV1().ConfigMaps(testNamespace).Update(ctx, cur, metav1.UpdateOptions{})
		}
	})

	// Readers: no key goes back, none appears twice. They read once per write, whenever one
	// completes, so that they interleave with writes without starving them.
	readErrs := make(chan error, 4)
	var readers sync.WaitGroup
	stopReaders := make(chan struct{})
	wrote := make(chan struct{}, 1)
	for r := range 2 {
		readers.Go(func() {
			floor := map[string]int{}
			for {
				select {
				case <-stopReaders:
					return
				case <-wrote:
				}
				seen := map[string]bool{}
				for _, it := range overlay.List() {
					cm := it.(*corev1.ConfigMap)
					if seen[cm.Name] {
						readErrs <- fmt.Errorf("reader %d: List has %s twice", r, cm.Name)
						return
					}
					seen[cm.Name] = true
					rv := atoi(cm.ResourceVersion)
					if rv < floor[cm.Name] {
						readErrs <- fmt.Errorf("reader %d: %s went back from %d to %d", r, cm.Name, floor[cm.Name], rv)
						return
					}
					floor[cm.Name] = rv
				}
			}
		})
	}

	const writers, namesEach = 4, 8
	writeErrs := make(chan error, writers)
	var writersDone sync.WaitGroup
	for w := range writers {
		writersDone.Go(func() {
			r := rand.New(rand.NewPCG(uint64(seed), uint64(10+w)))
			own := make([]ownState, namesEach)
			for step := w; step < *freeRunSteps; step += writers {
				k := r.IntN(namesEach)
				name := fmt.Sprintf("w%d-%d", w, k)
				color := []string{"red", "blue"}[r.IntN(2)]
				var err error
				switch cur := own[k].obj; {
				case cur == nil:
					cm := coloredConfigMap(name, "", color)
					cm.UID = ""
					own[k].obj, err = client.Create(ctx, cm, metav1.CreateOptions{})
				case r.IntN(4) == 0:
					opts := metav1.DeleteOptions{}
					if r.IntN(2) == 0 {
						opts.Preconditions = &metav1.Preconditions{UID: &cur.UID}
					}
					err = client.Delete(ctx, name, opts)
					own[k].obj = nil
				default:
					next := cur.DeepCopy()
					next.Labels["color"] = color
					own[k].obj, err = client.Update(ctx, next, metav1.UpdateOptions{})
				}
				if err != nil {
					writeErrs <- fmt.Errorf("writer %d step %d: %v", w, step, err)
					return
				}
				select {
				case wrote <- struct{}{}:
				default:
				}
				if err := checkOwn(overlay, lister, name, own[k].obj); err != nil {
					writeErrs <- fmt.Errorf("writer %d step %d: %v", w, step, err)
					return
				}
			}
		})
	}
	writersDone.Wait()
	close(stopOthers)
	others.Wait()
	close(stopReaders)
	readers.Wait()
	close(writeErrs)
	close(readErrs)
	for err := range writeErrs {
		t.Error(err)
	}
	for err := range readErrs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	// The list's resourceVersion is the last write's: wait until the overlay's handler has
	// handled its event.
	server, err := cs.CoreV1().ConfigMaps(testNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	if err := handled.await(waitCtx, server.ResourceVersion); err != nil {
		t.Fatal(err)
	}
	if n := overlay.Len(); n != 0 {
		for _, d := range describeEntries(overlay) {
			t.Log(d)
		}
		t.Fatalf("%d entries left after the informer delivered every event", n)
	}
	listed := map[string]string{}
	for _, it := range overlay.List() {
		cm := it.(*corev1.ConfigMap)
		listed[cm.Name] = cm.ResourceVersion
	}
	if len(listed) != len(server.Items) {
		t.Fatalf("List has %d objects, the server %d", len(listed), len(server.Items))
	}
	for _, cm := range server.Items {
		if listed[cm.Name] != cm.ResourceVersion {
			t.Fatalf("%s reads %q, the server has %s", cm.Name, listed[cm.Name], cm.ResourceVersion)
		}
	}
}

// checkOwn reads name through every path: each must show want exactly, or nothing when want
// is nil.
func checkOwn(o *Overlay, lister corelisters.ConfigMapLister, name string, want *corev1.ConfigMap) error {
	same := func(path string, got runtime.Object, found bool) error {
		switch {
		case want == nil && found:
			return fmt.Errorf("%s: %s is served after its delete", path, name)
		case want != nil && !found:
			return fmt.Errorf("%s: %s not found after own write at %s", path, name, want.ResourceVersion)
		case want != nil && got.(*corev1.ConfigMap).ResourceVersion != want.ResourceVersion:
			return fmt.Errorf("%s: %s read at %s, own write at %s", path, name, got.(*corev1.ConfigMap).ResourceVersion, want.ResourceVersion)
		}
		return nil
	}
	find := func(items []interface{}) (runtime.Object, bool, error) {
		var got runtime.Object
		for _, it := range items {
			if cm := it.(*corev1.ConfigMap); cm.Name == name {
				if got != nil {
					return nil, false, fmt.Errorf("%s appears twice", name)
				}
				got = cm
			}
		}
		return got, got != nil, nil
	}

	obj, found, _ := o.GetByKey(testNamespace + "/" + name)
	var got runtime.Object
	if found {
		got = obj.(runtime.Object)
	}
	if err := same("Get", got, found); err != nil {
		return err
	}
	got, found, err := find(o.List())
	if err != nil {
		return err
	}
	if err := same("List", got, found); err != nil {
		return err
	}
	color := "red"
	if want != nil {
		color = want.Labels["color"]
	}
	items, err := o.ByIndex(byColor, color)
	if err != nil {
		return err
	}
	if got, found, err = find(items); err != nil {
		return err
	}
	if err := same("ByIndex", got, found); err != nil {
		return err
	}
	cms, err := lister.ConfigMaps(testNamespace).List(labels.SelectorFromSet(labels.Set{"color": color}))
	if err != nil {
		return err
	}
	items = items[:0]
	for _, cm := range cms {
		items = append(items, cm)
	}
	if got, found, err = find(items); err != nil {
		return err
	}
	if err := same("namespaced lister", got, found); err != nil {
		return err
	}
	if _, err := lister.ConfigMaps(testNamespace).Get(name); (err == nil) != (want != nil) || (err != nil && !apierrors.IsNotFound(err)) {
		return fmt.Errorf("lister Get of %s: err %v, want found=%v", name, err, want != nil)
	}
	return nil
}
