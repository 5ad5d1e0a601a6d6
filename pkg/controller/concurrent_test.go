package controller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// TestConcurrentWorkersWithLaggingInformer runs the controller as it runs in production (Run,
// several workers, the real clock) on several clusters at once, while every BrokerCluster watch
// event reaches the informer up to 20 ms late, and scales each cluster 4 → 1. Each broker
// must be decommissioned exactly once, and none may leave before its decommission finished.
func TestConcurrentWorkersWithLaggingInformer(t *testing.T) {
	const clusters = 4
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(1, 2))
	delay := func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return time.Duration(rng.IntN(20_000)) * time.Microsecond
	}
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), delay: delay})
	names := make([]string, clusters)
	sims := map[string]*admintest.Cluster{}
	for i := range names {
		names[i] = fmt.Sprintf("cluster-%d", i)
		sims[names[i]] = h.sim.Cluster(testNamespace, names[i])
	}

	registry := prometheus.NewRegistry()
	c, err := NewController(Config{
		KubeClient: h.kube, BrokerClient: h.brokers, Namespaces: []string{testNamespace},
		AdminAddressTemplate: h.sim.BrokerAddressTemplate(), Guards: DefaultGuards(),
		DrainPollInterval: time.Millisecond, Registerer: registry,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()

	// The StatefulSet controller and kubelet: play every cluster on each StatefulSet event.
	stsEvents := make(chan struct{}, 1)
	poke := func() {
		select {
		case stsEvents <- struct{}{}:
		default:
		}
	}
	nc := c.caches[testNamespace]
	if _, err := nc.statefulSetInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(interface{}) { poke() }, UpdateFunc: func(_, _ interface{}) { poke() },
	}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-stsEvents:
			}
			for _, name := range names {
				if err := playStatefulSet(ctx, h.kube, name, sims[name]); err != nil && ctx.Err() == nil {
					t.Errorf("play %s: %v", name, err)
				}
			}
		}
	})
	runErr := make(chan error, 1)
	wg.Go(func() { runErr <- c.Run(ctx, 3) })

	steadyAt := func(replicas int32) func() bool {
		return func() bool {
			for _, name := range names {
				bc, err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false
				}
				st := bc.Status
				pods, err := h.kube.CoreV1().Pods(testNamespace).List(ctx, metav1.ListOptions{LabelSelector: LabelInstance + "=" + name})
				if err != nil || st.CurrentReplicas != replicas || st.DecommissioningBroker != nil ||
					int32(len(pods.Items)) != replicas || !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) {
					return false
				}
			}
			return true
		}
	}
	for _, name := range names {
		bc := newBrokerCluster(4)
		bc.Name = name
		// As in production, the admin port names each broker's address (its own listener).
		bc.Spec.AdminAPI.Port = int32(sims[name].AdminPort())
		if _, err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Create(ctx, bc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	h.await("every cluster to run 4 ready brokers", steadyAt(4))
	for _, name := range names {
		bc, err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bc.Spec.Replicas = 1
		if _, err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Update(ctx, bc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	h.await("every cluster to scale down to 1", steadyAt(1))
	cancel()
	wg.Wait()
	if err := <-runErr; err != nil {
		t.Fatalf("Run: %v", err)
	}

	for _, name := range names {
		calls := map[int]int{}
		for _, call := range sims[name].Calls() {
			if call.Method == "PUT" && call.Path == fmt.Sprintf("/v1/brokers/%d/decommission", call.NodeID) {
				calls[call.NodeID]++
			}
		}
		if len(calls) != 3 {
			t.Errorf("%s: decommissioned brokers %v, want 3 distinct", name, calls)
		}
		for id, n := range calls {
			if n != 1 {
				t.Errorf("%s: broker %d decommissioned %d times", name, id, n)
			}
		}
	}
	if d := h.sim.DoubleDecommissions(); len(d) > 0 {
		t.Errorf("double decommissions: %v", d)
	}
	if l := h.sim.LeftBeforeDecommission(); len(l) > 0 {
		t.Errorf("left before decommission: %v", l)
	}
}
