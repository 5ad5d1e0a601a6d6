package users

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/internal/controllertest"
	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

var wantEvents = controllertest.WantEvents

// readOrders allows reading topic orders and consuming as any group prefixed app-.
func readOrders() *v1alpha1.UserAuthorization {
	return &v1alpha1.UserAuthorization{ACLs: []v1alpha1.ACLRule{
		{Type: v1alpha1.ACLAllow, Host: "*", Resource: v1alpha1.ACLResource{Type: v1alpha1.ACLTopic, Name: "orders", PatternType: v1alpha1.ACLLiteral},
			Operations: []v1alpha1.ACLOperation{"Read", "Describe"}},
		{Type: v1alpha1.ACLAllow, Host: "*", Resource: v1alpha1.ACLResource{Type: v1alpha1.ACLGroup, Name: "app-", PatternType: v1alpha1.ACLPrefixed},
			Operations: []v1alpha1.ACLOperation{"Read"}},
	}}
}

func TestCreateWithGeneratedPasswordAndACLs(t *testing.T) {
	h := newHarness(t)
	bu := user("app")
	bu.Spec.Authorization = readOrders()
	h.create(bu)
	h.mustSync("app")

	s := h.secret("app-credentials")
	if !metav1.IsControlledBy(s, h.get("app")) || s.Type != corev1.SecretTypeBasicAuth || string(s.Data["username"]) != "app" {
		t.Fatalf("generated Secret %+v", s.ObjectMeta)
	}
	cred, ok := h.sim.User("app")
	if !ok || cred.Password != string(s.Data["password"]) || cred.Mechanism != "SCRAM-SHA-256" {
		t.Fatalf("the cluster holds %+v, %t; want the generated password, SCRAM-SHA-256", cred, ok)
	}
	if got := h.acls("User:app"); len(got) != 3 {
		t.Fatalf("ACLs of User:app: %+v, want 3", got)
	}
	h.wantReady("app", metav1.ConditionTrue, ReasonSynced)
	got := h.get("app")
	if st := got.Status; st.Origin != v1alpha1.UserCreated || st.ACLs != 3 || st.SecretName != "app-credentials" || st.Mechanism != v1alpha1.SCRAMSHA256 {
		t.Fatalf("status %+v", st)
	}
	if !slices.Contains(got.Finalizers, Finalizer) {
		t.Fatal("a user the operator created has no finalizer")
	}
	wantEvents(t, h.drainEvents(), EventSecretCreated, EventUserCreated, EventACLsUpdated)
}

// A reconcile that finds nothing to change sends no admin API write and no ACL change, and
// writes no status.
func TestNothingSentWhenNothingDiffers(t *testing.T) {
	h := newHarness(t)
	bu := user("app")
	bu.Spec.Authorization = readOrders()
	h.create(bu)
	h.mustSync("app")
	h.drainEvents()
	rv, writes := h.get("app").ResourceVersion, h.writes()

	creates, deletes := h.count(kmsg.CreateACLs), h.count(kmsg.DeleteACLs)
	h.mustSync("app")
	if n := h.writes() - writes + creates.Hits() + deletes.Hits(); n != 0 {
		t.Fatalf("%d writes sent for an unchanged user", n)
	}
	if got := h.get("app").ResourceVersion; got != rv {
		t.Fatalf("status written for an unchanged user: resourceVersion %s, was %s", got, rv)
	}
	wantEvents(t, h.drainEvents())
}

// The password comes from the Secret the spec names, with the cluster's mechanism; a change of
// the Secret sets it again.
func TestPasswordFromASecretAndItsRotation(t *testing.T) {
	h := newHarness(t)
	h.createCluster("kafka512", v1alpha1.SCRAMSHA512)
	pw := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "app-pw", Namespace: ns}, Data: map[string][]byte{"pw": []byte("first")}}
	if _, err := h.kube.CoreV1().Secrets(ns).Create(h.ctx, pw, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bu := user("app")
	bu.Spec.ClusterRef.Name = "kafka512"
	bu.Spec.Authentication = &v1alpha1.UserAuthentication{Password: &v1alpha1.UserPassword{
		ValueFrom: v1alpha1.PasswordSource{SecretKeyRef: v1alpha1.SecretKeyReference{Name: "app-pw", Key: "pw"}}}}
	h.create(bu)
	h.mustSync("app")
	if cred, _ := h.sim.User("app"); cred.Password != "first" || cred.Mechanism != "SCRAM-SHA-512" {
		t.Fatalf("the cluster holds %+v; want first, SCRAM-SHA-512", cred)
	}
	h.drainEvents()

	pw.Data["pw"] = []byte("second")
	if _, err := h.kube.CoreV1().Secrets(ns).Update(h.ctx, pw, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.mustSync("app")
	if cred, _ := h.sim.User("app"); cred.Password != "second" {
		t.Fatalf("after the rotation the cluster holds %+v", cred)
	}
	h.wantReady("app", metav1.ConditionTrue, ReasonSynced)
	wantEvents(t, h.drainEvents(), EventPasswordSet)
}

func TestMissingPasswordSecretIsAConditionAndARetry(t *testing.T) {
	h := newHarness(t)
	bu := user("app")
	bu.Spec.Authentication = &v1alpha1.UserAuthentication{Password: &v1alpha1.UserPassword{
		ValueFrom: v1alpha1.PasswordSource{SecretKeyRef: v1alpha1.SecretKeyReference{Name: "nope", Key: "password"}}}}
	h.create(bu)
	if err := h.sync("app"); err == nil {
		t.Fatal("a missing Secret is not retried")
	}
	h.wantReady("app", metav1.ConditionFalse, ReasonPasswordSecretNotFound)
	if _, ok := h.sim.User("app"); ok {
		t.Fatal("a user was created without its password")
	}
}

// A Secret of the generated name that the resource does not own is neither read nor rewritten.
func TestForeignSecretOfTheGeneratedNameIsLeftAlone(t *testing.T) {
	h := newHarness(t)
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "app-credentials", Namespace: ns}, Data: map[string][]byte{"password": []byte("theirs")}}
	if _, err := h.kube.CoreV1().Secrets(ns).Create(h.ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.create(user("app"))
	_ = h.sync("app")
	h.wantReady("app", metav1.ConditionFalse, ReasonSecretConflict)
	if _, ok := h.sim.User("app"); ok {
		t.Fatal("a user was created from a Secret the resource does not own")
	}
}

// Only this principal's ACLs change: one of its own that the spec lacks is deleted, another
// principal's is kept; a rule removed from the spec is deleted; with spec.authorization unset
// the principal's ACLs are not touched.
func TestOnlyThisPrincipalsACLsChange(t *testing.T) {
	h := newHarness(t)
	seed := func(principal, topic string) {
		rs, err := h.rpk.CreateACLs(h.ctx, kadm.NewACLs().Allow(principal).AllowHosts("*").Topics(topic).Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternLiteral))
		if err == nil {
			err = rs[0].Err
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	seed("User:other", "orders")
	seed("User:app", "payments")
	bu := user("app")
	bu.Spec.Authorization = readOrders()
	h.create(bu)
	h.mustSync("app")
	if got := h.acls("User:app"); len(got) != 3 || slices.ContainsFunc(got, func(a ACL) bool { return a.Name == "payments" }) {
		t.Fatalf("ACLs of User:app: %+v; want the spec's 3, the payments one deleted", got)
	}
	if got := h.acls("User:other"); len(got) != 1 {
		t.Fatalf("ACLs of User:other: %+v; want its one, untouched", got)
	}

	h.update("app", func(bu *v1alpha1.BrokerUser) { bu.Spec.Authorization.ACLs = bu.Spec.Authorization.ACLs[:1] })
	h.mustSync("app")
	if got := h.acls("User:app"); len(got) != 2 || h.get("app").Status.ACLs != 2 {
		t.Fatalf("after a rule left the spec, ACLs of User:app: %+v", got)
	}

	h.update("app", func(bu *v1alpha1.BrokerUser) { bu.Spec.Authorization = nil })
	deletes := h.count(kmsg.DeleteACLs)
	h.mustSync("app")
	if deletes.Hits() != 0 || len(h.acls("User:app")) != 2 {
		t.Fatal("with spec.authorization unset, the principal's ACLs were changed")
	}
}

// A user that exists and that this resource did not create is left alone until adopted; once
// adopted its password is set, and deleting the resource leaves it on the cluster.
func TestExistingUserIsAdoptedOnlyByAnnotationAndNeverDeleted(t *testing.T) {
	h := newHarness(t)
	if err := h.super.CreateUser(h.ctx, admin.User{Name: "app", Password: "by-rpk", Mechanism: admin.SCRAMSHA256}); err != nil {
		t.Fatal(err)
	}
	h.create(user("app"))
	writes := h.writes()
	h.mustSync("app")
	h.wantReady("app", metav1.ConditionFalse, ReasonAdoptionRequired)
	if h.writes() != writes || len(h.get("app").Finalizers) != 0 {
		t.Fatal("a user the resource did not create was changed, or the resource holds a finalizer")
	}

	h.update("app", func(bu *v1alpha1.BrokerUser) { bu.Annotations = map[string]string{v1alpha1.AdoptAnnotation: "true"} })
	h.mustSync("app")
	h.wantReady("app", metav1.ConditionTrue, ReasonSynced)
	if cred, _ := h.sim.User("app"); cred.Password != string(h.secret("app-credentials").Data["password"]) {
		t.Fatal("the adopted user's password was not set from its Secret")
	}
	if got := h.get("app"); got.Status.Origin != v1alpha1.UserAdopted || len(got.Finalizers) != 0 {
		t.Fatalf("origin %q, finalizers %v; want Adopted and none", got.Status.Origin, got.Finalizers)
	}
	h.delete("app")
	if _, ok := h.sim.User("app"); !ok {
		t.Fatal("deleting the resource deleted a user it did not create")
	}
}

func TestTheClustersSuperuserIsRefused(t *testing.T) {
	h := newHarness(t)
	h.create(user("admin"))
	writes := h.writes()
	h.mustSync("admin")
	h.wantReady("admin", metav1.ConditionFalse, ReasonSuperuserRefused)
	if cred, _ := h.sim.User("admin"); cred.Password != "pw" || h.writes() != writes {
		t.Fatal("the superuser was changed")
	}
}

func TestClusterWithoutSASLIsACondition(t *testing.T) {
	h := newHarness(t)
	h.clusters().Create(&v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: ns}, Spec: v1alpha1.BrokerClusterSpec{Replicas: 1, Image: "redpanda"}})
	bu := user("app")
	bu.Spec.ClusterRef.Name = "plain"
	h.create(bu)
	h.mustSync("app")
	h.wantReady("app", metav1.ConditionFalse, ReasonSASLNotEnabled)
}

// Deleting the resource of a user it created deletes the principal's ACLs, then the user, then
// drops the finalizer.
func TestDeletingDeletesACreatedUserAndItsACLs(t *testing.T) {
	h := newHarness(t)
	bu := user("app")
	bu.Spec.Authorization = readOrders()
	h.create(bu)
	h.mustSync("app")
	h.drainEvents()

	h.delete("app")
	h.mustSync("app")
	if _, ok := h.sim.User("app"); ok {
		t.Fatal("the user is still on the cluster")
	}
	if got := h.acls("User:app"); len(got) != 0 {
		t.Fatalf("ACLs left: %+v", got)
	}
	if len(h.get("app").Finalizers) != 0 {
		t.Fatal("the finalizer stays")
	}
	wantEvents(t, h.drainEvents(), EventUserDeleted)
}

// A deleted cluster never holds its users' resources: the finalizer goes, with an event.
func TestFinalizerDroppedWhenTheClusterIsGone(t *testing.T) {
	h := newHarness(t)
	h.create(user("app"))
	h.mustSync("app")
	h.drainEvents()
	h.deleteCluster("kafka")
	h.delete("app")
	h.mustSync("app")
	if len(h.get("app").Finalizers) != 0 {
		t.Fatal("the finalizer stays with the cluster gone")
	}
	wantEvents(t, h.drainEvents(), EventClusterGone)
}

// racer is another tool that creates the user, with its own password, right after the
// controller has looked.
type racer struct {
	admin.UsersClient
	h *harness
}

func (r racer) Users(ctx context.Context) ([]string, error) {
	names, err := r.UsersClient.Users(ctx)
	if err == nil {
		err = r.h.super.CreateUser(ctx, admin.User{Name: "app", Password: "theirs", Mechanism: admin.SCRAMSHA256})
	}
	return names, err
}

// A user created by someone else between the look and the create is not taken: the resource
// waits for adoption and holds no finalizer, so deleting it leaves that user.
func TestUserCreatedElsewhereDuringTheCreateIsNotTaken(t *testing.T) {
	h := newHarness(t)
	h.wrap = func(c admin.UsersClient) admin.UsersClient { return racer{c, h} }
	h.create(user("app"))
	h.mustSync("app")
	h.wrap = nil
	h.wantReady("app", metav1.ConditionFalse, ReasonAdoptionRequired)
	wantEvents(t, h.drainEvents(), EventSecretCreated, EventCreateRaced)
	h.mustSync("app") // drops the finalizer the create held
	if got := h.get("app"); got.Status.Origin != "" || len(got.Finalizers) != 0 {
		t.Fatalf("origin %q, finalizers %v", got.Status.Origin, got.Finalizers)
	}
	if cred, _ := h.sim.User("app"); cred.Password != "theirs" {
		t.Fatal("the other tool's user was changed")
	}
}

// A refused ACL change is a condition with Kafka's error and a retry; the next pass finishes.
func TestRefusedACLChangeIsRetried(t *testing.T) {
	h := newHarness(t)
	f := h.kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateACLs}, Err: kerr.ClusterAuthorizationFailed})
	t.Cleanup(f.Remove)
	bu := user("app")
	bu.Spec.Authorization = readOrders()
	h.create(bu)
	if err := h.sync("app"); !errors.Is(err, kerr.ClusterAuthorizationFailed) {
		t.Fatalf("sync: %v, want CLUSTER_AUTHORIZATION_FAILED", err)
	}
	h.wantReady("app", metav1.ConditionFalse, ReasonRequestRefused)
	h.mustSync("app")
	h.wantReady("app", metav1.ConditionTrue, ReasonSynced)
	if got := h.acls("User:app"); len(got) != 3 {
		t.Fatalf("ACLs after the retry: %+v", got)
	}
}
