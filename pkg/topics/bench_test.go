package topics

import (
	"context"
	"flag"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
)

var benchTopics = flag.Int("topics.count", 5000, "BrokerTopics BenchmarkManyTopics makes")

// BenchmarkManyTopics makes -topics.count BrokerTopics of one cluster on kfake and reports the
// time until every one is Ready, the time of one sweep of the cluster, and the status writes of a
// sweep in which nothing drifted (the goal is none). Run it alone:
//
//	go test ./pkg/topics -run '^$' -bench ManyTopics -benchtime 1x
func BenchmarkManyTopics(b *testing.B) {
	for range b.N {
		n := *benchTopics
		h := newHarness(b)
		h.c.cfg.Recorder = &record.FakeRecorder{} // drops events: a buffered one would block
		ctx, cancel := context.WithCancel(h.ctx)
		// The harness holds BrokerTopic watch events; here they flow as they come.
		go func() {
			for h.holder.AwaitPending(ctx, 1) == nil {
				h.holder.ReleaseAll()
			}
		}()
		start := time.Now()
		for i := range n {
			bt := topic("t-"+strconv.Itoa(i), 1, 0)
			if _, err := h.client.BrokersV1alpha1().BrokerTopics(ns).Create(ctx, bt, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		go func() { _ = h.c.Run(h.ctx, 4) }()
		deadline := time.Now().Add(10 * time.Minute)
		for ready := 0; ready < n; {
			time.Sleep(100 * time.Millisecond) // a measurement's sampling, not a synchronisation
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d topics Ready after 10 minutes", ready, n)
			}
			list, err := h.client.BrokersV1alpha1().BrokerTopics(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			ready = 0
			for _, bt := range list.Items {
				if meta.IsStatusConditionTrue(bt.Status.Conditions, ConditionReady) && bt.Status.ReplicationFactor > 0 {
					ready++
				}
			}
		}
		createAll := time.Since(start)

		writes := func() int {
			w := 0
			for _, a := range h.client.Actions() {
				if a.GetVerb() == "update" && a.GetSubresource() == "status" {
					w++
				}
			}
			return w
		}
		for h.c.queue.Len() > 0 { // the last status writes' own events
			time.Sleep(10 * time.Millisecond)
		}
		before := writes()
		start = time.Now()
		h.c.sweep(ctx)
		sweep := time.Since(start)
		queued := h.c.queue.Len()
		b.ReportMetric(createAll.Seconds(), "s-to-all-ready")
		b.ReportMetric(float64(sweep.Milliseconds()), "ms-per-sweep")
		b.ReportMetric(float64(queued), "drifted-in-steady-sweep")
		b.ReportMetric(float64(writes()-before), "status-writes-in-steady-sweep")
		cancel() // the harness's cleanup stops the informers and so Run
	}
}
