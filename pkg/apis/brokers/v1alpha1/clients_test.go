package v1alpha1_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	v1alpha1 "github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
	informers "github.com/broker-operator/broker-operator/pkg/generated/informers/externalversions"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// The generated fake clientset, informer and lister must work together: users test their own
// controllers with them.
func TestFakeClientsetInformerListerRoundTrip(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	client := fake.NewClientset()
	watches := writebacktest.RecordWatches(&client.Fake, client.Tracker())
	factory := informers.NewSharedInformerFactory(client, 0)
	informer := factory.Brokers().V1alpha1().BrokerClusters()
	lister := informer.Lister()
	factory.Start(ctx.Done())
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		t.Fatal("informer did not sync")
	}
	// The fake loses a delete made between the informer's List and its Watch.
	if err := watches.Await(ctx, v1alpha1.SchemeGroupVersion.WithResource("brokerclusters")); err != nil {
		t.Fatal(err)
	}

	bc := &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "one"},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas: 3,
			Image:    "broker:1",
			Storage:  v1alpha1.StorageSpec{Size: resource.MustParse("1Gi")},
		},
	}
	if _, err := client.BrokersV1alpha1().BrokerClusters("ns").Create(ctx, bc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	waitFor(ctx, t, "the created BrokerCluster in the lister", func() bool {
		got, err := lister.BrokerClusters("ns").Get("one")
		return err == nil && got.Spec.Replicas == 3
	})

	updated := bc.DeepCopy()
	updated.Status.CurrentReplicas = 2
	if _, err := client.BrokersV1alpha1().BrokerClusters("ns").UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update status: %v", err)
	}
	waitFor(ctx, t, "the status update in the lister", func() bool {
		got, err := lister.BrokerClusters("ns").Get("one")
		return err == nil && got.Status.CurrentReplicas == 2
	})
}

// waitFor polls an informer-backed condition; the informer delivers asynchronously, so polling
// (with a deadline) is the synchronisation here.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
