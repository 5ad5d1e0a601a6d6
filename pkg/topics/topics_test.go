package topics

import (
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/internal/controllertest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

var wantEvents = controllertest.WantEvents

func TestCreateWithPartitionsReplicationAndConfig(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 6, 0)
	bt.Spec.ReplicationFactor = ptr.To[int32](3)
	bt.Spec.Config = map[string]string{"cleanup.policy": "compact", "retention.ms": "3600000"}
	h.create(bt)
	h.mustSync("orders")

	got := h.describe("orders")
	if !got.Exists || got.Partitions != 6 || got.ReplicationFactor != 3 {
		t.Fatalf("topic %+v, want 6 partitions with 3 replicas", got)
	}
	if got.Config["cleanup.policy"] != "compact" || got.Config["retention.ms"] != "3600000" {
		t.Fatalf("topic config %v, want the spec's", got.Config)
	}
	h.wantReady("orders", metav1.ConditionTrue, ReasonSynced)
	st := h.get("orders").Status
	if st.Origin != v1alpha1.TopicCreated || st.TopicName != "orders" || st.Partitions != 6 ||
		!slices.Equal(st.ManagedConfig, []string{"cleanup.policy", "retention.ms"}) {
		t.Fatalf("status %+v", st)
	}
	if len(h.get("orders").Finalizers) != 0 {
		t.Fatal("deletionPolicy Retain added a finalizer")
	}
	wantEvents(t, h.drainEvents(), EventTopicCreated)
}

// A reconcile that finds nothing to change sends no create, no partition increase, no alter
// and writes no status.
func TestNothingSentWhenNothingDiffers(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.Config = map[string]string{"retention.ms": "1000"}
	h.create(bt)
	h.mustSync("orders")
	h.mustSync("orders") // fills in what the create's answer did not say
	rv := h.get("orders").ResourceVersion
	h.drainEvents()

	creates, grows, alters := h.count(kmsg.CreateTopics), h.count(kmsg.CreatePartitions), h.count(kmsg.IncrementalAlterConfigs)
	h.mustSync("orders")
	if n := creates.Hits() + grows.Hits() + alters.Hits(); n != 0 {
		t.Fatalf("%d change requests sent for an unchanged topic", n)
	}
	if got := h.get("orders").ResourceVersion; got != rv {
		t.Fatalf("status written for an unchanged topic: resourceVersion %s, was %s", got, rv)
	}
	wantEvents(t, h.drainEvents())
}

func TestPartitionsGrow(t *testing.T) {
	h := newHarness(t)
	h.create(topic("orders", 3, 0))
	h.mustSync("orders")
	h.drainEvents()

	h.update("orders", func(bt *v1alpha1.BrokerTopic) { bt.Spec.Partitions = 8 })
	h.mustSync("orders")
	if got := h.describe("orders").Partitions; got != 8 {
		t.Fatalf("%d partitions, want 8", got)
	}
	if got := h.get("orders").Status.Partitions; got != 8 {
		t.Fatalf("status.partitions %d, want 8", got)
	}
	wantEvents(t, h.drainEvents(), EventPartitionsIncreased)
}

// More partitions on the topic than in the spec: reported, never a request.
func TestPartitionsAboveSpecReported(t *testing.T) {
	h := newHarness(t)
	if err := h.kafka.CreateTopic("orders", 12, nil); err != nil {
		t.Fatal(err)
	}
	bt := topic("orders", 4, 0)
	bt.Annotations = map[string]string{v1alpha1.AdoptAnnotation: "true"}
	h.create(bt)
	grows := h.count(kmsg.CreatePartitions)
	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionFalse, ReasonPartitionsAboveSpec)
	if grows.Hits() != 0 || h.describe("orders").Partitions != 12 {
		t.Fatal("the partitions above spec were touched")
	}
}

// The operator changes the keys it set and no others: a key set with rpk stays, a managed key
// removed from the spec is reset, a managed key changed with rpk is set back.
func TestConfigChangesOnlyManagedKeys(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.Config = map[string]string{"retention.ms": "1000", "segment.bytes": "1048576"}
	h.create(bt)
	h.mustSync("orders")
	h.rpkSet("orders", "max.message.bytes", "2048") // someone else's key
	h.drainEvents()

	h.update("orders", func(bt *v1alpha1.BrokerTopic) {
		bt.Spec.Config = map[string]string{"retention.ms": "2000"} // segment.bytes leaves the spec
	})
	alters := h.count(kmsg.IncrementalAlterConfigs)
	h.mustSync("orders")
	got := h.describe("orders").Config
	if got["retention.ms"] != "2000" {
		t.Fatalf("retention.ms %q, want 2000", got["retention.ms"])
	}
	if _, ok := got["segment.bytes"]; ok {
		t.Fatal("segment.bytes, set by the operator and removed from the spec, was not reset")
	}
	if got["max.message.bytes"] != "2048" {
		t.Fatalf("max.message.bytes, set with rpk, is %q", got["max.message.bytes"])
	}
	if alters.Hits() != 1 {
		t.Fatalf("%d alter requests, want one", alters.Hits())
	}
	if st := h.get("orders").Status; !slices.Equal(st.ManagedConfig, []string{"retention.ms"}) {
		t.Fatalf("status.managedConfig %v, want [retention.ms]", st.ManagedConfig)
	}
	wantEvents(t, h.drainEvents(), EventConfigUpdated)

	h.rpkSet("orders", "retention.ms", "5") // a managed key changed behind the operator's back
	h.mustSync("orders")
	if got := h.describe("orders").Config; got["retention.ms"] != "2000" || got["max.message.bytes"] != "2048" {
		t.Fatalf("config %v: want retention.ms set back to 2000, max.message.bytes left at 2048", got)
	}
}

func TestRefusedConfigIsACondition(t *testing.T) {
	h := newHarness(t)
	h.create(topic("orders", 3, 0))
	h.mustSync("orders")
	h.update("orders", func(bt *v1alpha1.BrokerTopic) { bt.Spec.Config = map[string]string{"retention.ms": "1"} })
	h.kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.IncrementalAlterConfigs}, Err: kerr.InvalidConfig})
	if err := h.sync("orders"); err == nil {
		t.Fatal("a refused alter reported no error: it would not be retried")
	}
	h.wantReady("orders", metav1.ConditionFalse, ReasonRequestRefused)
	if st := h.get("orders").Status; len(st.ManagedConfig) != 0 {
		t.Fatalf("status.managedConfig %v names a key that was never set", st.ManagedConfig)
	}
	h.mustSync("orders") // the fault answered once
	h.wantReady("orders", metav1.ConditionTrue, ReasonSynced)
}

func TestExistingTopicUntouchedUntilAdopted(t *testing.T) {
	h := newHarness(t)
	if err := h.kafka.CreateTopic("orders", 3, map[string]string{"retention.ms": "7"}); err != nil {
		t.Fatal(err)
	}
	bt := topic("orders", 6, 0)
	bt.Spec.Config = map[string]string{"retention.ms": "1000"}
	h.create(bt)
	grows, alters := h.count(kmsg.CreatePartitions), h.count(kmsg.IncrementalAlterConfigs)
	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionFalse, ReasonAdoptionRequired)
	if grows.Hits()+alters.Hits() != 0 {
		t.Fatal("a topic not adopted was changed")
	}
	if st := h.get("orders").Status; st.Origin != "" || st.Partitions != 3 {
		t.Fatalf("status %+v: want no origin and the topic's 3 partitions", st)
	}

	h.update("orders", func(bt *v1alpha1.BrokerTopic) {
		bt.Annotations = map[string]string{v1alpha1.AdoptAnnotation: "true"}
	})
	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionTrue, ReasonSynced)
	if got := h.describe("orders"); got.Partitions != 6 || got.Config["retention.ms"] != "1000" {
		t.Fatalf("adopted topic %+v, want 6 partitions and retention.ms 1000", got)
	}
	if h.get("orders").Status.Origin != v1alpha1.TopicAdopted {
		t.Fatal("status.origin is not Adopted")
	}
	wantEvents(t, h.drainEvents(), EventTopicAdopted, EventPartitionsIncreased, EventConfigUpdated)
}

// Someone creates the topic between the operator's look and its create: the create's
// TOPIC_ALREADY_EXISTS makes the resource wait for adoption, as for any topic it did not make.
func TestTopicCreatedElsewhereBetweenLookAndCreate(t *testing.T) {
	h := newHarness(t)
	h.create(topic("orders", 3, 0))
	// The other tool's topic exists, and the operator's look misses it: what it sees when the
	// other create lands right after its look.
	if err := h.kafka.CreateTopic("orders", 1, nil); err != nil {
		t.Fatal(err)
	}
	h.kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Metadata}, Topic: "orders", Err: kerr.UnknownTopicOrPartition})
	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionFalse, ReasonAdoptionRequired)
	if h.get("orders").Status.Origin != "" {
		t.Fatal("a topic created by someone else was taken as this resource's")
	}
	if got := h.describe("orders").Partitions; got != 1 {
		t.Fatalf("the other creator's topic was changed: %d partitions", got)
	}
	wantEvents(t, h.drainEvents(), EventCreateRaced)
}

// A create whose answer is lost: the intent recorded before it makes the topic this resource's.
func TestLostCreateAnswerStillOwned(t *testing.T) {
	h := newHarness(t)
	h.create(topic("orders", 3, 0))
	h.kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Err: kerr.RequestTimedOut}) // applied, then timed out
	if err := h.sync("orders"); err == nil {
		t.Fatal("a timed-out create reported no error")
	}
	if st := h.get("orders").Status; st.Origin != v1alpha1.TopicCreating {
		t.Fatalf("status.origin %q after a create with no answer, want Creating", st.Origin)
	}
	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionTrue, ReasonSynced)
	if st := h.get("orders").Status; st.Origin != v1alpha1.TopicCreated {
		t.Fatalf("status.origin %q, want Created", st.Origin)
	}
}

func TestDeletePolicyDeletesTheTopic(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.DeletionPolicy = v1alpha1.TopicDelete
	h.create(bt)
	h.mustSync("orders")
	if !slices.Contains(h.get("orders").Finalizers, Finalizer) {
		t.Fatal("deletionPolicy Delete added no finalizer")
	}
	h.drainEvents()

	h.delete("orders")
	h.mustSync("orders")
	if h.describe("orders").Exists {
		t.Fatal("the topic survived its resource under deletionPolicy Delete")
	}
	if fs := h.get("orders").Finalizers; len(fs) != 0 {
		t.Fatalf("finalizers %v after the topic was deleted", fs)
	}
	wantEvents(t, h.drainEvents(), EventTopicDeleted)
}

func TestRetainPolicyKeepsTheTopic(t *testing.T) {
	h := newHarness(t)
	h.create(topic("orders", 3, 0))
	h.mustSync("orders")
	deletes := h.count(kmsg.DeleteTopics)
	h.delete("orders") // no finalizer: gone at once
	if err := h.sync("orders"); err != nil {
		t.Fatal(err)
	}
	if !h.describe("orders").Exists || deletes.Hits() != 0 {
		t.Fatal("deleting a Retain resource touched its topic")
	}
}

// Delete on a topic the resource never adopted: the topic stays, the finalizer goes.
func TestDeletePolicyNeverDeletesATopicNotAdopted(t *testing.T) {
	h := newHarness(t)
	if err := h.kafka.CreateTopic("orders", 3, nil); err != nil {
		t.Fatal(err)
	}
	bt := topic("orders", 3, 0)
	bt.Spec.DeletionPolicy = v1alpha1.TopicDelete
	h.create(bt)
	h.mustSync("orders")
	h.delete("orders")
	h.mustSync("orders")
	if !h.describe("orders").Exists {
		t.Fatal("a topic the resource never created or adopted was deleted")
	}
	if fs := h.get("orders").Finalizers; len(fs) != 0 {
		t.Fatalf("finalizers %v", fs)
	}
}

func TestFinalizerDroppedWhenClusterGone(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.DeletionPolicy = v1alpha1.TopicDelete
	h.create(bt)
	h.mustSync("orders")
	h.drainEvents()
	h.deleteCluster("kafka")
	h.delete("orders")
	deletes := h.count(kmsg.DeleteTopics)
	h.mustSync("orders")
	if fs := h.get("orders").Finalizers; len(fs) != 0 {
		t.Fatalf("finalizers %v: a gone cluster holds the resource", fs)
	}
	if deletes.Hits() != 0 {
		t.Fatal("a delete was sent for a cluster that is gone")
	}
	wantEvents(t, h.drainEvents(), EventClusterGone)
}

// A failed delete keeps the finalizer and says why; the retry deletes.
func TestFailedDeleteKeepsTheFinalizer(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.DeletionPolicy = v1alpha1.TopicDelete
	h.create(bt)
	h.mustSync("orders")
	h.delete("orders")
	h.kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteTopics}, Err: kerr.TopicAuthorizationFailed})
	if err := h.sync("orders"); err == nil {
		t.Fatal("a refused delete reported no error")
	}
	h.wantReady("orders", metav1.ConditionFalse, ReasonDeleting)
	if !slices.Contains(h.get("orders").Finalizers, Finalizer) {
		t.Fatal("the finalizer went while the topic still exists")
	}
	h.mustSync("orders")
	if h.describe("orders").Exists || len(h.get("orders").Finalizers) != 0 {
		t.Fatal("the retry did not delete the topic and drop the finalizer")
	}
}

// Two resources for one topic: the older owns it, the younger says ResourceConflict and
// changes nothing, and is not deleted with it.
func TestSecondResourceForATopicConflicts(t *testing.T) {
	h := newHarness(t)
	first := topic("orders", 3, 10)
	first.Spec.Config = map[string]string{"retention.ms": "1000"}
	h.create(first)
	second := topic("orders-again", 9, 1)
	second.Spec.TopicName = "orders"
	second.Spec.Config = map[string]string{"retention.ms": "9"}
	second.Spec.DeletionPolicy = v1alpha1.TopicDelete
	h.create(second)

	// The younger is reconciled first: it still must not act.
	h.mustSync("orders-again")
	h.wantReady("orders-again", metav1.ConditionFalse, ReasonResourceConflict)
	if h.describe("orders").Exists {
		t.Fatal("the younger resource created the topic")
	}
	h.mustSync("orders")
	h.mustSync("orders-again")
	h.wantReady("orders", metav1.ConditionTrue, ReasonSynced)
	h.wantReady("orders-again", metav1.ConditionFalse, ReasonResourceConflict)
	if got := h.describe("orders"); got.Partitions != 3 || got.Config["retention.ms"] != "1000" {
		t.Fatalf("topic %+v: the younger resource changed it", got)
	}
	if msg := h.ready("orders-again").Message; !strings.Contains(msg, "BrokerTopic orders,") {
		t.Fatalf("the conflict message %q does not name the owner", msg)
	}

	h.delete("orders-again")
	h.mustSync("orders-again")
	if !h.describe("orders").Exists {
		t.Fatal("deleting the younger resource deleted the older one's topic")
	}
}

func TestClusterNotFoundIsACondition(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.ClusterRef.Name = "elsewhere"
	h.create(bt)
	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionFalse, ReasonClusterNotFound)
	h.createCluster("elsewhere")
	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionTrue, ReasonSynced)
}

// A topic deleted and made again by someone else is another topic: the resource lets it go,
// and under deletionPolicy Delete does not delete it.
func TestTopicMadeAgainOutsideIsNotTheResources(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.DeletionPolicy = v1alpha1.TopicDelete
	h.create(bt)
	h.mustSync("orders")
	id := h.get("orders").Status.TopicID
	if id == "" || id != h.describe("orders").ID {
		t.Fatalf("status.topicID %q, the topic's ID %q", id, h.describe("orders").ID)
	}
	h.drainEvents()

	if err := h.kafka.DeleteTopic("orders"); err != nil {
		t.Fatal(err)
	}
	if err := h.kafka.CreateTopic("orders", 1, nil); err != nil {
		t.Fatal(err)
	}
	h.delete("orders") // before any reconcile saw the new topic: only the read right before the delete can tell
	deletes := h.count(kmsg.DeleteTopics)
	h.mustSync("orders")
	if deletes.Hits() != 0 || !h.describe("orders").Exists {
		t.Fatal("the topic someone else made again was deleted")
	}
	if fs := h.get("orders").Finalizers; len(fs) != 0 {
		t.Fatalf("finalizers %v", fs)
	}
	wantEvents(t, h.drainEvents(), EventTopicRetained)
}

func TestTopicMadeAgainOutsideWaitsForAdoption(t *testing.T) {
	h := newHarness(t)
	h.create(topic("orders", 3, 0))
	h.mustSync("orders")
	h.drainEvents()
	if err := h.kafka.DeleteTopic("orders"); err != nil {
		t.Fatal(err)
	}
	if err := h.kafka.CreateTopic("orders", 1, nil); err != nil {
		t.Fatal(err)
	}
	grows := h.count(kmsg.CreatePartitions)
	h.mustSync("orders")
	h.wantReady("orders", metav1.ConditionFalse, ReasonAdoptionRequired)
	if st := h.get("orders").Status; st.Origin != "" || st.TopicID != "" {
		t.Fatalf("status %+v still claims the new topic", st)
	}
	if grows.Hits() != 0 {
		t.Fatal("the new topic was changed")
	}
	wantEvents(t, h.drainEvents(), EventTopicReplaced)
}

// A delete that timed out after Kafka carried it out: the retry finds the topic gone and lets
// the resource go, without a second delete.
func TestTimedOutDeleteThatTookEffect(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.DeletionPolicy = v1alpha1.TopicDelete
	h.create(bt)
	h.mustSync("orders")
	h.delete("orders")
	h.kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteTopics}, Err: kerr.RequestTimedOut})
	if err := h.sync("orders"); err == nil {
		t.Fatal("a timed-out delete reported no error")
	}
	if h.describe("orders").Exists {
		t.Fatal("the fault did not carry the delete out: the test shows nothing")
	}
	deletes := h.count(kmsg.DeleteTopics)
	h.mustSync("orders")
	if deletes.Hits() != 0 {
		t.Fatal("a second delete was sent for a topic already gone")
	}
	if fs := h.get("orders").Finalizers; len(fs) != 0 {
		t.Fatalf("finalizers %v", fs)
	}
}
