package topics

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// drainQueue empties the queue, as workers would, and returns the keys it held, sorted.
func (h *harness) drainQueue() []string {
	var keys []string
	for h.c.queue.Len() > 0 {
		k, _ := h.c.queue.Get()
		keys = append(keys, k)
		h.c.queue.Forget(k)
		h.c.queue.Done(k)
	}
	slices.Sort(keys)
	return keys
}

func (h *harness) resourceVersions(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, h.get(n).ResourceVersion)
	}
	return out
}

// One sweep reads all of a cluster's topics with one DescribeConfigs request, queues exactly
// the resources whose topic drifted, and writes nothing; a sweep after they were reconciled
// queues nothing.
func TestSweepQueuesOnlyWhatDrifted(t *testing.T) {
	h := newHarness(t)
	for _, name := range []string{"steady", "edited", "deleted"} {
		bt := topic(name, 3, 0)
		bt.Spec.Config = map[string]string{"retention.ms": "1000"}
		h.create(bt)
		h.mustSync(name)
		h.mustSync(name) // a second pass records what the create's answer did not say
	}
	if err := h.kafka.CreateTopic("foreign", 1, nil); err != nil {
		t.Fatal(err)
	}
	h.create(topic("foreign", 3, 0)) // waits for adoption: no sweep changes that
	h.mustSync("foreign")

	h.rpkSet("edited", "retention.ms", "5")
	if err := h.kafka.DeleteTopic("deleted"); err != nil {
		t.Fatal(err)
	}
	all := []string{"steady", "edited", "deleted", "foreign"}
	before := h.resourceVersions(all...)
	h.drainQueue()
	configReads := h.count(kmsg.DescribeConfigs)

	h.c.sweep(h.ctx)
	if got, want := h.drainQueue(), []string{ns + "/deleted", ns + "/edited"}; !slices.Equal(got, want) {
		t.Fatalf("the sweep queued %v, want %v", got, want)
	}
	if n := configReads.Hits(); n != 1 {
		t.Fatalf("the sweep sent %d DescribeConfigs requests for four topics, want one", n)
	}
	if after := h.resourceVersions(all...); !slices.Equal(before, after) {
		t.Fatalf("the sweep wrote: resourceVersions %v, were %v", after, before)
	}

	h.mustSync("edited")
	h.mustSync("deleted")
	h.drainQueue()
	h.c.sweep(h.ctx)
	if got := h.drainQueue(); len(got) != 0 {
		t.Fatalf("a sweep after the reconciles queued %v", got)
	}
	if got := h.describe("edited").Config["retention.ms"]; got != "1000" {
		t.Fatalf("retention.ms %q after the sweep's reconcile, want 1000", got)
	}
	if !h.describe("deleted").Exists {
		t.Fatal("the deleted topic was not made again")
	}
}

func TestDrifted(t *testing.T) {
	managed := func() *v1alpha1.BrokerTopic {
		bt := topic("orders", 3, 0)
		bt.Spec.Config = map[string]string{"retention.ms": "1"}
		bt.Status = v1alpha1.BrokerTopicStatus{Origin: v1alpha1.TopicCreated, TopicID: "id", Partitions: 3, ReplicationFactor: 3, ManagedConfig: []string{"retention.ms"}}
		return bt
	}
	same := Topic{Exists: true, ID: "id", Partitions: 3, ReplicationFactor: 3, Config: map[string]string{"retention.ms": "1", "other": "x"}}
	for _, tc := range []struct {
		name   string
		bt     *v1alpha1.BrokerTopic
		change func(*Topic)
		want   bool
	}{
		{"nothing changed, a foreign key set", managed(), func(*Topic) {}, false},
		{"a managed key changed", managed(), func(t *Topic) { t.Config = map[string]string{"retention.ms": "2"} }, true},
		{"the topic gone", managed(), func(t *Topic) { *t = Topic{} }, true},
		{"another ID", managed(), func(t *Topic) { t.ID = "other" }, true},
		{"partitions added outside", managed(), func(t *Topic) { t.Partitions = 4 }, true},
		{"not adopted, present", topic("orders", 3, 0), func(*Topic) {}, false},
		{"not adopted, gone", topic("orders", 3, 0), func(t *Topic) { *t = Topic{} }, true},
	} {
		got := same
		got.Config = map[string]string{"retention.ms": "1", "other": "x"}
		tc.change(&got)
		if drifted(tc.bt, got) != tc.want {
			t.Errorf("%s: drifted %v, want %v", tc.name, !tc.want, tc.want)
		}
	}
}
