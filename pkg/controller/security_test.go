package controller

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

const laterPassword = "pw-later-81c2-do-not-log"

// putAuthSecret creates or replaces the superuser's Secret, behind the controller's back.
func (h *harness) putAuthSecret(password string) {
	h.t.Helper()
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: testAuthSecret, Namespace: testNamespace},
		Type:       corev1.SecretTypeBasicAuth,
		Data:       map[string][]byte{"username": []byte(testUsername), "password": []byte(password)},
	}
	gvr := corev1.SchemeGroupVersion.WithResource("secrets")
	if _, err := h.kubeTrack.Get(gvr, testNamespace, testAuthSecret); err == nil {
		if err := h.kubeTrack.Update(gvr, secret, testNamespace); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	if err := h.kubeTrack.Add(secret); err != nil {
		h.t.Fatal(err)
	}
}

// simAs is a client of the simulated cluster with these credentials ("" for none).
func (h *harness) simAs(user, password string) admin.ClusterConfigClient {
	h.t.Helper()
	cc, err := admin.NewClusterConfigClient(admin.Config{URLs: h.cluster.URLs(1), Username: user, Password: password})
	if err != nil {
		h.t.Fatal(err)
	}
	return cc
}

// simProperty reads one cluster property as password's superuser.
func (h *harness) simProperty(password, name string, into any) {
	h.t.Helper()
	cfg, err := h.simAs(testUsername, password).ClusterConfig(h.ctx, true)
	if err != nil {
		h.t.Fatalf("read %s: %v", name, err)
	}
	if err := json.Unmarshal(cfg[name], into); err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
}

func (h *harness) securityCondition() metav1.Condition {
	h.t.Helper()
	if c := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionSecurityReady); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// securityWrites lists, in order, the calls that put the superuser in place or enforce: user
// creates and updates, and cluster property writes.
func (h *harness) securityWrites() []string {
	var out []string
	for _, c := range h.cluster.Calls() {
		switch {
		case c.Method == http.MethodPost && c.Path == "/v1/security/users" && c.Status == http.StatusOK:
			out = append(out, "create")
		case c.Method == http.MethodPut && strings.HasPrefix(c.Path, "/v1/security/users/") && c.Status == http.StatusOK:
			out = append(out, "update")
		case c.Method == http.MethodPut && c.Path == "/v1/cluster_config":
			out = append(out, "config")
		}
	}
	return out
}

// Admin API auth added to a running cluster: the user is created, added to superusers beside
// the names already there, and only then is admin_api_require_auth turned on, with the user's
// own credentials; the operator is never refused, and anonymous callers are from then on.
func TestAdminAuthTurnedOnForARunningCluster(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	if _, err := h.simAs("", "").PatchClusterConfig(h.ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"superusers": json.RawMessage(`["ops-team"]`)}, Remove: []string{}}); err != nil {
		t.Fatal(err)
	}
	h.events()
	seeded := len(h.securityWrites())
	h.putAuthSecret(testPassword)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: testAuthSecret}
	})
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}

	if u, ok := h.cluster.User(testUsername); !ok || u.Password != testPassword || u.Mechanism != string(admin.SCRAMSHA256) {
		t.Errorf("user %+v (exists %t), want the Secret's password, SCRAM-SHA-256", u, ok)
	}
	var supers []string
	var required bool
	h.simProperty(testPassword, "superusers", &supers)
	h.simProperty(testPassword, "admin_api_require_auth", &required)
	if !slices.Equal(supers, []string{"ops-team", testUsername}) || !required {
		t.Errorf("superusers %v, admin_api_require_auth %t; want [ops-team %s] and true", supers, required, testUsername)
	}
	// The create first, then the superusers write, then admin_api_require_auth's.
	if got := h.securityWrites()[seeded:]; !slices.Equal(got, []string{"create", "config", "config"}) {
		t.Errorf("security writes %v, want create, superusers, admin_api_require_auth", got)
	}
	if c := h.securityCondition(); c.Status != metav1.ConditionTrue || c.Reason != brokers.ReasonSecurityEnforced {
		t.Errorf("SecurityReady %+v, want True %s", c, brokers.ReasonSecurityEnforced)
	}
	events := strings.Join(h.events(), "\n")
	for _, want := range []string{"Normal SuperuserCreated", "Normal SuperuserGranted", "Normal AdminAPIAuthEnforced"} {
		if !strings.Contains(events, want) {
			t.Errorf("events %q, want %q", events, want)
		}
	}
	if strings.Contains(events, testPassword) {
		t.Error("an event holds the password")
	}
	if _, err := h.simAs("", "").ClusterConfig(h.ctx, false); err == nil {
		t.Error("an anonymous caller is still let in")
	}

	// The rollout of the new pod template goes on, as the superuser.
	for range 30 {
		h.reconcileAfterPoll()
	}
	if !meta.IsStatusConditionTrue(h.stored().Status.Conditions, v1alpha1.ConditionReady) {
		t.Errorf("not Ready after the rollout: %+v", h.stored().Status.Conditions)
	}
	for _, c := range h.cluster.Calls() {
		// The operator always sends credentials; the anonymous calls are this test's.
		if c.User != "" && (c.Status == http.StatusUnauthorized || c.Status == http.StatusForbidden) {
			t.Errorf("the brokers refused the operator: %+v", c)
		}
	}
	if n := len(h.securityWrites()) - seeded; n != 3 {
		t.Errorf("%d security writes after the rollout, want the 3 of the first check", n)
	}
}

// A failure between two stages leaves the cluster as the last stage did, says so, and the
// next reconcile resumes: enforcement never comes before the superusers write.
func TestAdminAuthResumesAfterAFailedStage(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.putAuthSecret(testPassword)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: testAuthSecret}
	})
	// Every broker refuses the superusers write: the client tries each once.
	h.cluster.SetFault(admintest.Fault{Status: http.StatusServiceUnavailable, Method: http.MethodPut, Times: 3})
	h.events()
	h.reconcile() //nolint:errcheck // the rollout may fail on the same fault; the condition is what is checked

	if _, ok := h.cluster.User(testUsername); !ok {
		t.Fatal("the user was not created")
	}
	var required bool
	h.simProperty(testPassword, "admin_api_require_auth", &required)
	if required {
		t.Fatal("admin_api_require_auth on though superusers was never written")
	}
	c := h.securityCondition()
	if c.Status != metav1.ConditionUnknown || !strings.Contains(c.Message, "created user") {
		t.Errorf("SecurityReady %+v, want Unknown naming the stage reached", c)
	}
	if n, all := h.countEvents("Warning SecurityCheckFailed", ""); n != 1 {
		t.Errorf("events %q, want one SecurityCheckFailed", all)
	}

	h.reconcileAfterPoll()
	if c := h.securityCondition(); c.Status != metav1.ConditionTrue {
		t.Fatalf("SecurityReady %+v after the fault cleared", c)
	}
	h.simProperty(testPassword, "admin_api_require_auth", &required)
	// The resumed check sends the create again, a no-op for the same password (security.cc
	// is_no_op_user_write).
	want := []string{"create", "config", "config", "config", "create", "config", "config"}
	if got := h.securityWrites(); !required || !slices.Equal(got, want) {
		t.Errorf("security writes %v (admin_api_require_auth %t), want %v: the create, the superusers write refused by each broker, then the no-op create, superusers, enforcement", got, required, want)
	}
}

// A user of that name made by someone else, with another password, is left alone: nothing
// proves which password is right while authentication is off, and a client may use it. SASL
// waits with it: enable_sasl, and the rollout onto listeners that require SASL, which no broker
// starts until the Secret holds the user's password.
func TestExistingUserWithAnotherPasswordIsLeftAlone(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	uc, err := admin.NewUsersClient(admin.Config{URLs: h.cluster.URLs(3)})
	if err != nil {
		t.Fatal(err)
	}
	if err := uc.CreateUser(h.ctx, admin.User{Name: testUsername, Password: "theirs", Mechanism: admin.SCRAMSHA256}); err != nil {
		t.Fatal(err)
	}
	h.putAuthSecret(testPassword)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: testAuthSecret}
		s.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{}}
	})
	h.events()
	before := h.podUIDs()
	for range 3 {
		h.reconcileAfterPoll()
	}
	if after := h.podUIDs(); !maps.Equal(after, before) || h.stored().Status.Restart != nil {
		t.Errorf("pods %v, restart %+v: no broker may restart onto SASL before the superuser is in place (pods before %v)", after, h.stored().Status.Restart, before)
	}
	if d := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded); d == nil || d.Reason != step.ReasonSASLWaitsForSuperuser ||
		!strings.Contains(d.Message, brokers.ReasonSecurityPasswordDiffers) {
		t.Errorf("Degraded %+v, want %s naming %s", d, step.ReasonSASLWaitsForSuperuser, brokers.ReasonSecurityPasswordDiffers)
	}
	if u, _ := h.cluster.User(testUsername); u.Password != "theirs" {
		t.Error("the user's password was changed")
	}
	var required, sasl bool
	h.simProperty("theirs", "admin_api_require_auth", &required)
	h.simProperty("theirs", "enable_sasl", &sasl)
	if required || sasl {
		t.Errorf("admin_api_require_auth %t, enable_sasl %t: nothing may be enforced", required, sasl)
	}
	if c := h.securityCondition(); c.Status != metav1.ConditionFalse || c.Reason != brokers.ReasonSecurityPasswordDiffers {
		t.Errorf("SecurityReady %+v, want False %s", c, brokers.ReasonSecurityPasswordDiffers)
	}
	events := h.events()
	if n := countPrefixed(events, "Warning SuperuserPasswordDiffers", testUsername); n != 1 {
		t.Errorf("events %q, want one warning", events)
	}
	if n := countPrefixed(events, "Warning HoldForSuperuser", "SASL"); n != 1 {
		t.Errorf("events %q, want one warning that the rollout is held", events)
	}

	// The user's password in the Secret: the superuser is in place, SASL is enforced, and the
	// brokers restart onto it one at a time.
	h.putAuthSecret("theirs")
	ids := h.nodeIDs()
	for i := 0; ; i++ {
		if i == 40 {
			t.Fatalf("rollout onto SASL not done after 40 reconciles: status %+v", h.stored().Status)
		}
		h.reconcileAfterPoll()
		done := h.stored().Status.Restart == nil
		for _, p := range h.pods() {
			done = done && objects.PodRequiresSASL(&p)
		}
		if done {
			break
		}
	}
	if c := h.securityCondition(); c.Status != metav1.ConditionTrue {
		t.Errorf("SecurityReady %+v, want True", c)
	}
	h.checkRestartedOneAtATime(ids, before)
	for _, p := range h.pods() {
		if !objects.PodRequiresSASL(&p) {
			t.Errorf("pod %s does not require SASL after the rollout", p.Name)
		}
	}
	if n, all := h.countEvents("Normal HoldForSuperuser", "no longer held"); n != 1 {
		t.Errorf("events %q, want one that the hold ended", all)
	}
}

// Kafka SASL and admin auth added together: enable_sasl is written only once the superuser
// exists, with the spec's mechanism.
func TestSASLTurnedOnAfterTheSuperuser(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.putAuthSecret(testPassword)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: testAuthSecret}
		s.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SASLMechanism(admin.SCRAMSHA512)}}
	})
	h.reconcile() //nolint:errcheck
	if u, ok := h.cluster.User(testUsername); !ok || u.Mechanism != string(admin.SCRAMSHA512) {
		t.Errorf("user %+v, want SCRAM-SHA-512", u)
	}
	var sasl bool
	h.simProperty(testPassword, "enable_sasl", &sasl)
	if !sasl {
		t.Error("enable_sasl not written once the superuser was in place")
	}
	if got := h.securityWrites(); len(got) < 4 || !slices.Equal(got[:3], []string{"create", "config", "config"}) {
		t.Errorf("writes %v, want the superuser's three before enable_sasl's", got)
	}
}

// A new password in the Secret is set on the user with the one that last worked, and the
// operator goes on with the new one.
func TestSuperuserPasswordRotation(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), auth: true})
	h.bringUp(3)
	if c := h.securityCondition(); c.Status != metav1.ConditionTrue {
		t.Fatalf("SecurityReady %+v on a cluster created with auth", c)
	}
	h.putAuthSecret(laterPassword)
	h.events()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 }) // any reconcile reads the Secret
	h.settle(20)

	if u, _ := h.cluster.User(testUsername); u.Password != laterPassword {
		t.Error("the user's password is not the Secret's new one")
	}
	if n, all := h.countEvents("Normal SuperuserPasswordRotated", testUsername); n != 1 {
		t.Errorf("events %q, want one rotation", all)
	}
	if c := h.securityCondition(); c.Status != metav1.ConditionTrue {
		t.Errorf("SecurityReady %+v after the rotation", c)
	}
	if got := h.decommissionCalls(); len(got) != 1 {
		t.Errorf("decommissions %v: the scale-down must go on with the new password", got)
	}
}

// An operator that restarted since the password last worked cannot rotate it: it says so, and
// changes nothing.
func TestRotationWithoutTheOldPasswordSaysSo(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), auth: true})
	h.bringUp(3)
	h.putAuthSecret(laterPassword)
	h.c.brokers.Forget(testKey) // what a restart loses
	h.events()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.PodAnnotations = map[string]string{"touch": "1"} })
	h.reconcile() //nolint:errcheck // the rest of the reconcile is refused too

	if u, _ := h.cluster.User(testUsername); u.Password != testPassword {
		t.Error("the password changed")
	}
	c := h.securityCondition()
	if c.Status != metav1.ConditionFalse || c.Reason != brokers.ReasonSecurityPasswordRefused {
		t.Errorf("SecurityReady %+v, want False %s", c, brokers.ReasonSecurityPasswordRefused)
	}
	if n, all := h.countEvents("Warning SuperuserPasswordRefused", ""); n != 1 {
		t.Errorf("events %q, want one warning", all)
	}
	// Putting the old password back is enough.
	h.putAuthSecret(testPassword)
	h.reconcileAfterPoll()
	if c := h.securityCondition(); c.Status != metav1.ConditionTrue {
		t.Errorf("SecurityReady %+v with the old password back", c)
	}
}

// SASL added with SCRAM-SHA-512 to a cluster whose superuser has SCRAM-SHA-256: its password is
// proven by every call, so its mechanism is changed, and the operator goes on.
func TestSASLMechanismChangesTheSuperusers(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), auth: true})
	h.bringUp(3)
	h.events()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SASLMechanism(admin.SCRAMSHA512)}}
	})
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if u, _ := h.cluster.User(testUsername); u.Mechanism != string(admin.SCRAMSHA512) || u.Password != testPassword {
		t.Errorf("user %s mechanism %s, want SCRAM-SHA-512 with the same password", testUsername, u.Mechanism)
	}
	if n, all := h.countEvents("Normal SuperuserMechanismChanged", "SCRAM-SHA-512"); n != 1 {
		t.Errorf("events %q, want one SuperuserMechanismChanged", all)
	}
	if c := h.securityCondition(); c.Status != metav1.ConditionTrue {
		t.Errorf("SecurityReady %+v", c)
	}
}
