package users

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

const ns = "team"

// harness is one controller over the generated fake clientset, a simulated admin API
// (admintest, its superuser admin:pw) and a kfake cluster, all on 127.0.0.1. Tests call sync
// directly, one reconcile at a time, so each step is deterministic; the test's own writes to the
// fake are awaited in the informer before the next reconcile.
type harness struct {
	t      testing.TB
	ctx    context.Context
	sim    *admintest.Cluster
	super  admin.UsersClient // the superuser's own admin client: rpk, as another tool would use it
	kafka  *kfake.Cluster
	rpk    *kadm.Client
	client *fake.Clientset
	kube   *kubefake.Clientset
	c      *Controller
	events *record.FakeRecorder
	clock  *testingclock.FakeClock
	holder *writebacktest.Holder
	// wrap, when set, stands between the controller and the admin client.
	wrap func(admin.UsersClient) admin.UsersClient
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	srv := admintest.NewServer(admintest.Options{Username: "admin", Password: "pw"})
	t.Cleanup(srv.Close)
	sim := srv.Cluster(ns, "kafka")
	for i := range 3 {
		sim.Join(i)
	}
	super, err := admin.NewUsersClient(sim.Config(3))
	if err != nil {
		t.Fatal(err)
	}
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
	// BrokerUser events wait in a holder: the harness releases them when the test writes, and
	// a test that wants the informer to lag leaves them held.
	holder := writebacktest.NewHolder()
	cs.PrependWatchReactor("brokerusers", watches.Reactor(writebacktest.WatchReactor(tracker, holder.Wrap)))
	// Secrets get resourceVersions, as the apiserver gives them: a rotation is told by its own.
	kube := kubefake.NewClientset()
	writebacktest.StampServerFields(&kube.Fake, kube.Tracker())
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "kafka-superuser", Namespace: ns},
		Data:       map[string][]byte{"username": []byte("admin"), "password": []byte("pw")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, sim: sim, super: super, kafka: kc, rpk: kadm.NewClient(cl), client: cs, holder: holder, kube: kube,
		events: record.NewFakeRecorder(100), clock: testingclock.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	h.c, err = NewController(Config{
		KubeClient:   h.kube,
		BrokerClient: cs,
		Admin: func(context.Context, *v1alpha1.BrokerCluster) (admin.UsersClient, error) {
			if h.wrap != nil {
				return h.wrap(super), nil
			}
			return super, nil
		},
		Kafka: func(context.Context, *v1alpha1.BrokerCluster) (*kgo.Client, error) {
			return kgo.NewClient(kgo.SeedBrokers(kc.ListenAddrs()...))
		},
		Recorder:    h.events,
		Clock:       h.clock,
		CallTimeout: 10 * time.Second,
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
		h.c.queue.ShutDown()
	})
	if err := h.c.start(ctx); err != nil {
		t.Fatal(err)
	}
	gv := v1alpha1.SchemeGroupVersion
	if err := watches.Await(ctx, gv.WithResource("brokerusers"), gv.WithResource("brokerclusters")); err != nil {
		t.Fatal(err)
	}
	h.createCluster("kafka", v1alpha1.SCRAMSHA256)
	return h
}

// createCluster makes a BrokerCluster with SASL of mechanism and the superuser Secret.
func (h *harness) createCluster(name string, mechanism v1alpha1.SASLMechanism) {
	h.t.Helper()
	spec := v1alpha1.BrokerClusterSpec{Replicas: 3, Image: "redpanda",
		Kafka:    &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{Mechanism: mechanism}},
		AdminAPI: v1alpha1.AdminAPISpec{Auth: &v1alpha1.AdminAPIAuth{SecretName: "kafka-superuser"}}}
	bc, err := h.client.BrokersV1alpha1().BrokerClusters(ns).Create(h.ctx, &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.awaitInformer(h.c.caches[""].clusterInformer.GetIndexer().GetByKey, ns+"/"+name, bc.ResourceVersion)
}

func (h *harness) deleteCluster(name string) {
	h.t.Helper()
	if err := h.client.BrokersV1alpha1().BrokerClusters(ns).Delete(h.ctx, name, metav1.DeleteOptions{}); err != nil {
		h.t.Fatal(err)
	}
	h.awaitGone(h.c.caches[""].clusterInformer.GetIndexer().GetByKey, ns+"/"+name)
}

// user is a BrokerUser of cluster "kafka" with a generated password and no ACLs managed.
func user(name string) *v1alpha1.BrokerUser {
	return &v1alpha1.BrokerUser{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       v1alpha1.BrokerUserSpec{ClusterRef: v1alpha1.ClusterReference{Name: "kafka"}},
	}
}

func (h *harness) create(bu *v1alpha1.BrokerUser) {
	h.t.Helper()
	created, err := h.client.BrokersV1alpha1().BrokerUsers(ns).Create(h.ctx, bu, metav1.CreateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.awaitUserInformer(created)
}

// update changes a BrokerUser as a user would (kubectl edit) and waits for the informer.
func (h *harness) update(name string, mutate func(*v1alpha1.BrokerUser)) {
	h.t.Helper()
	bu := h.get(name)
	mutate(bu)
	if bu.Annotations == nil {
		bu.Annotations = map[string]string{}
	}
	bu.Annotations["test"] = "user" // tells the RBAC test the user's writes from the controller's
	updated, err := h.client.BrokersV1alpha1().BrokerUsers(ns).Update(h.ctx, bu, metav1.UpdateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.awaitUserInformer(updated)
}

// delete does what the apiserver does on a delete: with finalizers it sets deletionTimestamp,
// without it removes the object. The fake clientset knows nothing of finalizers.
func (h *harness) delete(name string) {
	h.t.Helper()
	bu := h.get(name)
	if len(bu.Finalizers) == 0 {
		if err := h.client.BrokersV1alpha1().BrokerUsers(ns).Delete(h.ctx, name, metav1.DeleteOptions{}); err != nil {
			h.t.Fatal(err)
		}
		h.awaitGone(h.c.caches[""].userInformer.GetIndexer().GetByKey, ns+"/"+name)
		return
	}
	h.update(name, func(bu *v1alpha1.BrokerUser) { bu.DeletionTimestamp = &metav1.Time{Time: h.clock.Now()} })
}

func (h *harness) awaitUserInformer(bu *v1alpha1.BrokerUser) {
	h.t.Helper()
	h.awaitInformer(h.c.caches[""].userInformer.GetIndexer().GetByKey, ns+"/"+bu.Name, bu.ResourceVersion)
}

// awaitInformer waits until an informer holds key at resourceVersion rv or later: a condition
// polled, not a sleep.
func (h *harness) awaitInformer(get func(string) (any, bool, error), key, rv string) {
	h.t.Helper()
	want, _ := strconv.ParseUint(rv, 10, 64)
	err := wait.PollUntilContextTimeout(h.ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		h.holder.ReleaseAll()
		obj, ok, _ := get(key)
		if !ok {
			return false, nil
		}
		got, _ := strconv.ParseUint(obj.(metav1.Object).GetResourceVersion(), 10, 64)
		return got >= want, nil
	})
	if err != nil {
		h.t.Fatalf("the informer never showed %s at resourceVersion %s: %v", key, rv, err)
	}
}

func (h *harness) awaitGone(get func(string) (any, bool, error), key string) {
	h.t.Helper()
	err := wait.PollUntilContextTimeout(h.ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		h.holder.ReleaseAll()
		_, ok, _ := get(key)
		return !ok, nil
	})
	if err != nil {
		h.t.Fatalf("the informer still shows %s: %v", key, err)
	}
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

// get reads the resource from the fake apiserver: the truth, not a cache.
func (h *harness) get(name string) *v1alpha1.BrokerUser {
	h.t.Helper()
	bu, err := h.client.BrokersV1alpha1().BrokerUsers(ns).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return bu
}

func (h *harness) wantReady(name string, status metav1.ConditionStatus, reason string) {
	h.t.Helper()
	c := meta.FindStatusCondition(h.get(name).Status.Conditions, ConditionReady)
	if c == nil {
		h.t.Fatalf("%s has no Ready condition", name)
	}
	if c.Status != status || c.Reason != reason {
		h.t.Fatalf("%s: Ready %s/%s (%s), want %s/%s", name, c.Status, c.Reason, c.Message, status, reason)
	}
}

// drainEvents returns the events recorded since the last call.
func (h *harness) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-h.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// secret reads a Secret from the fake apiserver.
func (h *harness) secret(name string) *corev1.Secret {
	h.t.Helper()
	s, err := h.kube.CoreV1().Secrets(ns).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// acls reads a principal's ACLs from Kafka through the test's own client.
func (h *harness) acls(principal string) []ACL {
	h.t.Helper()
	got, err := describeACLs(h.ctx, h.rpk, principal)
	if err != nil {
		h.t.Fatal(err)
	}
	return got
}

// count observes the Kafka requests of one kind from now on.
func (h *harness) count(key kmsg.Key) *kfake.FaultHandle {
	f := h.kafka.Fault(kfake.Fault{Keys: []kmsg.Key{key}, Observe: true, Count: -1})
	h.t.Cleanup(f.Remove)
	return f
}

// writes counts the simulated admin API's users writes so far.
func (h *harness) writes() int {
	n := 0
	for _, c := range h.sim.Calls() {
		if c.Method != "GET" && c.Status == 200 {
			n++
		}
	}
	return n
}
