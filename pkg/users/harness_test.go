package users

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/internal/controllertest"
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
	// meta serves the Secrets' metadata the controller watches; the test writes it beside kube.
	meta   *metadatafake.FakeMetadataClient
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
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	meta := metadatafake.NewSimpleMetadataClient(scheme)
	h := &harness{t: t, sim: sim, super: super, kafka: kc, rpk: kadm.NewClient(cl), client: cs, holder: holder, kube: kube, meta: meta,
		events: record.NewFakeRecorder(100), clock: testingclock.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	h.c, err = NewController(Config{
		KubeClient:     h.kube,
		BrokerClient:   cs,
		MetadataClient: meta,
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
		// Every informer is waited for, the Secret watch's too: one still stopping would read
		// klog's state while a later test sets it (secretslog_test.go).
		for _, nc := range h.c.caches {
			nc.factory.Shutdown()
			if nc.secretRunner != nil {
				nc.secretRunner.Shutdown()
			}
		}
		h.c.queue.ShutDown()
	})
	if err := h.c.informers.Start(ctx); err != nil {
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
	h.clusters().Create(&v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec})
}

// clusters writes BrokerClusters and waits for the controller's cluster informer.
func (h *harness) clusters() controllertest.Kubectl[*v1alpha1.BrokerCluster] {
	return controllertest.Kubectl[*v1alpha1.BrokerCluster]{T: h.t, Ctx: h.ctx, Holder: h.holder, Client: h.client.BrokersV1alpha1().BrokerClusters(ns),
		Store: h.c.caches[""].clusterInformer.GetIndexer().GetByKey, Now: h.clock.Now}
}

func (h *harness) deleteCluster(name string) { h.t.Helper(); h.clusters().Delete(name) }

// user is a BrokerUser of cluster "kafka" with a generated password and no ACLs managed.
func user(name string) *v1alpha1.BrokerUser {
	return &v1alpha1.BrokerUser{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       v1alpha1.BrokerUserSpec{ClusterRef: v1alpha1.ClusterReference{Name: "kafka"}},
	}
}

// users writes BrokerUsers as a user with kubectl would; update marks its writes for the RBAC
// test, delete sets deletionTimestamp where a finalizer holds the resource.
func (h *harness) users() controllertest.Kubectl[*v1alpha1.BrokerUser] {
	return controllertest.Kubectl[*v1alpha1.BrokerUser]{T: h.t, Ctx: h.ctx, Holder: h.holder, Client: h.client.BrokersV1alpha1().BrokerUsers(ns),
		Store: h.c.caches[""].userInformer.GetIndexer().GetByKey, Now: h.clock.Now}
}

func (h *harness) create(bu *v1alpha1.BrokerUser) { h.t.Helper(); h.users().Create(bu) }
func (h *harness) delete(name string)             { h.t.Helper(); h.users().Delete(name) }
func (h *harness) get(name string) *v1alpha1.BrokerUser {
	h.t.Helper()
	return h.users().Get(name)
}
func (h *harness) update(name string, mutate func(*v1alpha1.BrokerUser)) {
	h.t.Helper()
	h.users().Update(name, mutate)
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
func (h *harness) drainEvents() []string { return controllertest.DrainEvents(h.events) }

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
