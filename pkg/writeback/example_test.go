package writeback_test

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// counter is a sample-controller-style controller: it reads from a lister and writes through a
// typed client. Each sync bumps an annotation and depends on the value it wrote last.
type counter struct {
	lister corelisters.ConfigMapLister
	client func(namespace string) typedcorev1.ConfigMapInterface
	synced []cache.InformerSynced
}

func (c *counter) sync(ctx context.Context, namespace, name string) error {
	cm, err := c.lister.ConfigMaps(namespace).Get(name)
	if err != nil {
		return err
	}
	n, _ := strconv.Atoi(cm.Annotations["example.dev/count"])
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"example.dev/count":%q}}}`, strconv.Itoa(n+1))
	_, err = c.client(namespace).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// Adopting the write-back store in a sample-controller-style controller takes three lines where
// the controller is built: the overlay over the informer, the lister on the overlay instead of
// the informer's, and a client that records its writes. Every read after a write then sees it,
// however late the watch is.
func ExampleNewObserving() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the informers
	clientset := fake.NewClientset()
	tracker := writebacktest.StampServerFields(&clientset.Fake, clientset.Tracker()) // resourceVersions, as an apiserver
	watches := writebacktest.RecordWatches(&clientset.Fake, tracker)                 // the fake loses deletes made before its watch opens
	factory := informers.NewSharedInformerFactory(clientset, 0)

	// Before: lister := factory.Core().V1().ConfigMaps().Lister()
	overlay, overlaySynced, err := writeback.NewObserving("configmaps", factory.Core().V1().ConfigMaps().Informer(), writeback.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := &counter{
		lister: corelisters.NewConfigMapLister(overlay),
		client: func(ns string) typedcorev1.ConfigMapInterface {
			return writeback.Wrap(clientset.CoreV1().ConfigMaps(ns), ns, overlay)
		},
		synced: []cache.InformerSynced{factory.Core().V1().ConfigMaps().Informer().HasSynced, overlaySynced},
	}

	factory.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), c.synced...)
	if err := watches.Await(ctx, corev1.SchemeGroupVersion.WithResource("configmaps")); err != nil {
		fmt.Println(err)
		return
	}

	if _, err := c.client("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "tally"}}, metav1.CreateOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	for range 5 {
		if err := c.sync(ctx, "default", "tally"); err != nil {
			fmt.Println(err)
			return
		}
	}
	cm, err := c.lister.ConfigMaps("default").Get("tally")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("count:", cm.Annotations["example.dev/count"])
	// Output: count: 5
}
