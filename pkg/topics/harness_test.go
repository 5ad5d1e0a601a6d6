package topics

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/internal/controllertest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

const ns = "team"

// harness is one controller over the generated fake clientset and a kfake cluster on
// 127.0.0.1. Tests call sync directly, one reconcile at a time, so each step is deterministic;
// the test's own writes to the fake are awaited in the informer before the next reconcile.
type harness struct {
	t         testing.TB
	ctx       context.Context
	kafka     *kfake.Cluster
	rpk       *kadm.Client // the test's own Kafka client: another tool, as rpk would be
	rpkClient *kgo.Client
	client    *fake.Clientset
	c         *Controller
	events    *record.FakeRecorder
	clock     *testingclock.FakeClock
	holder    *writebacktest.Holder
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	kc, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(kc.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)

	cs := fake.NewClientset()
	tracker := writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
	watches := writebacktest.RecordWatches(&cs.Fake, tracker)
	// BrokerTopic events wait in a holder: the harness releases them when the test writes,
	// and a test that wants the informer to lag leaves them held.
	holder := writebacktest.NewHolder()
	cs.PrependWatchReactor("brokertopics", watches.Reactor(writebacktest.WatchReactor(tracker, holder.Wrap)))
	h := &harness{t: t, holder: holder, kafka: kc, rpk: kadm.NewClient(cl), rpkClient: cl, client: cs,
		events: record.NewFakeRecorder(100), clock: testingclock.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	h.c, err = NewController(Config{
		KubeClient:   kubefake.NewClientset(),
		BrokerClient: cs,
		Connect: func(context.Context, *v1alpha1.BrokerCluster) (Kafka, error) {
			return NewKafka(kgo.SeedBrokers(kc.ListenAddrs()...))
		},
		Recorder:     h.events,
		Clock:        h.clock,
		KafkaTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	h.ctx = ctx
	t.Cleanup(func() {
		cancel()
		for _, nc := range h.c.caches {
			nc.factory.Shutdown()
		}
		h.c.clients.closeAll()
		h.c.queue.ShutDown()
	})
	if err := h.c.informers.Start(ctx); err != nil {
		t.Fatal(err)
	}
	gv := v1alpha1.SchemeGroupVersion
	if err := watches.Await(ctx, gv.WithResource("brokertopics"), gv.WithResource("brokerclusters")); err != nil {
		t.Fatal(err)
	}
	h.createCluster("kafka")
	return h
}

func (h *harness) createCluster(name string) {
	h.t.Helper()
	h.clusters().Create(&v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       v1alpha1.BrokerClusterSpec{Replicas: 3, Image: "redpanda"},
	})
}

// clusters writes BrokerClusters and waits for the controller's cluster informer.
func (h *harness) clusters() controllertest.Kubectl[*v1alpha1.BrokerCluster] {
	return controllertest.Kubectl[*v1alpha1.BrokerCluster]{T: h.t, Ctx: h.ctx, Holder: h.holder, Client: h.client.BrokersV1alpha1().BrokerClusters(ns),
		Store: h.c.caches[""].clusterInformer.GetIndexer().GetByKey, Now: h.clock.Now}
}

func (h *harness) deleteCluster(name string) { h.t.Helper(); h.clusters().Delete(name) }

// topic is a BrokerTopic of cluster "kafka"; age orders resources that name one topic.
func topic(name string, partitions int32, age int) *v1alpha1.BrokerTopic {
	return &v1alpha1.BrokerTopic{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 100-age, 0, time.UTC))},
		Spec: v1alpha1.BrokerTopicSpec{ClusterRef: v1alpha1.ClusterReference{Name: "kafka"}, Partitions: partitions,
			DeletionPolicy: v1alpha1.TopicRetain},
	}
}

// topics writes BrokerTopics as a user with kubectl would; update marks its writes for the RBAC
// test, delete sets deletionTimestamp where a finalizer holds the resource.
func (h *harness) topics() controllertest.Kubectl[*v1alpha1.BrokerTopic] {
	return controllertest.Kubectl[*v1alpha1.BrokerTopic]{T: h.t, Ctx: h.ctx, Holder: h.holder, Client: h.client.BrokersV1alpha1().BrokerTopics(ns),
		Store: h.c.caches[""].topicInformer.GetIndexer().GetByKey, Now: h.clock.Now}
}

func (h *harness) create(bt *v1alpha1.BrokerTopic) { h.t.Helper(); h.topics().Create(bt) }
func (h *harness) delete(name string)              { h.t.Helper(); h.topics().Delete(name) }
func (h *harness) get(name string) *v1alpha1.BrokerTopic {
	h.t.Helper()
	return h.topics().Get(name)
}
func (h *harness) update(name string, mutate func(*v1alpha1.BrokerTopic)) {
	h.t.Helper()
	h.topics().Update(name, mutate)
}

func (h *harness) sync(name string) error {
	return h.c.sync(h.ctx, ns+"/"+name)
}

func (h *harness) mustSync(name string) {
	h.t.Helper()
	if err := h.sync(name); err != nil {
		h.t.Fatalf("sync %s: %v", name, err)
	}
}

func (h *harness) ready(name string) *metav1.Condition {
	h.t.Helper()
	c := meta.FindStatusCondition(h.get(name).Status.Conditions, ConditionReady)
	if c == nil {
		h.t.Fatalf("%s has no Ready condition", name)
	}
	return c
}

func (h *harness) wantReady(name string, status metav1.ConditionStatus, reason string) {
	h.t.Helper()
	if c := h.ready(name); c.Status != status || c.Reason != reason {
		h.t.Fatalf("%s: Ready %s/%s (%s), want %s/%s", name, c.Status, c.Reason, c.Message, status, reason)
	}
}

// drainEvents returns the events recorded since the last call.
func (h *harness) drainEvents() []string { return controllertest.DrainEvents(h.events) }

// describe reads the topic from Kafka through the test's own client.
func (h *harness) describe(topic string) Topic {
	h.t.Helper()
	k := &kadmKafka{client: h.rpkClient, adm: h.rpk}
	t, err := k.Describe(h.ctx, topic)
	if err != nil {
		h.t.Fatal(err)
	}
	return t
}

// rpkSet sets a topic config key as another tool would.
func (h *harness) rpkSet(topic, key, value string) {
	h.t.Helper()
	rs, err := h.rpk.AlterTopicConfigs(h.ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: key, Value: kadm.StringPtr(value)}}, topic)
	for _, r := range rs {
		err = errors.Join(err, r.Err)
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

// count observes the Kafka requests of one kind from now on.
func (h *harness) count(key kmsg.Key) *kfake.FaultHandle {
	f := h.kafka.Fault(kfake.Fault{Keys: []kmsg.Key{key}, Observe: true, Count: -1})
	h.t.Cleanup(f.Remove)
	return f
}
