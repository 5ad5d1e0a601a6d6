package controller

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/broker-operator/broker-operator/internal/klogtest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestMissingAuthSecretDegradesAndWaits(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), auth: true})
	h.bringUp(3)
	if err := h.kubeTrack.Delete(corev1.SchemeGroupVersion.WithResource("secrets"), testNamespace, testAuthSecret); err != nil {
		t.Fatal(err)
	}
	h.events()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	if _, err := h.reconcile(); err == nil {
		t.Fatal("a reconcile without the Secret succeeded")
	}
	st := h.stored().Status
	cond := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != ReasonAdminSecretMissing ||
		!strings.Contains(cond.Message, testNamespace+"/"+testAuthSecret) || !strings.Contains(cond.Message, "spec.adminAPI.auth.secretName") {
		t.Errorf("Degraded %+v, want True, %s, naming the Secret and the field", cond, ReasonAdminSecretMissing)
	}
	if st.CurrentReplicas != 3 || st.DecommissioningBroker != nil || len(h.decommissionCalls()) != 0 {
		t.Errorf("status %+v, decommissions %v: nothing may move without the Secret", st, h.decommissionCalls())
	}
	events := strings.Join(h.events(), "\n")
	if !strings.Contains(events, "Warning") || !strings.Contains(events, testAuthSecret) || !strings.Contains(events, "not found") {
		t.Errorf("events %q, want a warning naming the missing Secret", events)
	}

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: testAuthSecret, Namespace: testNamespace},
		Data: map[string][]byte{"username": []byte(testUsername), "password": []byte(testPassword)}}
	if err := h.kubeTrack.Add(secret); err != nil {
		t.Fatal(err)
	}
	h.settle(10)
	if cond := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded); cond.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v after the Secret came back", cond)
	}
	if l := h.sim.LeftBeforeDecommission(); len(l) != 0 {
		t.Errorf("left before decommission: %v", l)
	}
}

// Everything the operator says at the highest verbosity, through its life with credentials and
// through each way they can be wrong, never carries a password.
func TestCredentialsNeverInLogsEventsOrStatus(t *testing.T) {
	var out klogtest.Buffer
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(10), textlogger.Output(&out)))
	klog.SetLoggerWithOptions(logger, klog.ContextualLogger(true))
	t.Cleanup(klog.ClearLogger)

	h := newHarness(t, harnessOptions{guards: DefaultGuards(), auth: true})
	h.ctx = klog.NewContext(h.ctx, logger)
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.settle(10)

	const wrongPassword = "wrong-pw-5e1d-do-not-log"
	setSecret := func(data map[string]string) {
		t.Helper()
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: testAuthSecret, Namespace: testNamespace}, Data: map[string][]byte{}}
		for k, v := range data {
			secret.Data[k] = []byte(v)
		}
		if err := h.kubeTrack.Update(corev1.SchemeGroupVersion.WithResource("secrets"), secret, testNamespace); err != nil {
			t.Fatal(err)
		}
	}
	var conditions []string
	check := func(wantReason string) {
		t.Helper()
		if _, err := h.reconcile(); err == nil {
			t.Errorf("%s: reconcile succeeded", wantReason)
		}
		cond := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
		if cond == nil || cond.Reason != wantReason {
			t.Errorf("Degraded %+v, want reason %s", cond, wantReason)
		}
		conditions = append(conditions, fmt.Sprint(cond))
	}
	// A rotation: the new password is set with the old one.
	const rotatedPassword = "rotated-pw-93b0-do-not-log"
	setSecret(map[string]string{"username": testUsername, "password": rotatedPassword})
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 1 })
	if _, err := h.reconcile(); err != nil {
		t.Fatalf("rotation: %v", err)
	}
	if u, _ := h.cluster.User(testUsername); u.Password != rotatedPassword {
		t.Fatal("the password was not rotated")
	}
	// The brokers refuse a wrong password (401) the operator, restarted since the password last
	// worked, cannot set.
	h.c.brokers.Forget(testKey)
	setSecret(map[string]string{"username": testUsername, "password": wrongPassword})
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	check(ReasonAdminAPIUnauthorized)
	// A Secret with a password and no username.
	setSecret(map[string]string{"password": wrongPassword})
	check(ReasonAdminSecretInvalid)

	all := out.String() + strings.Join(h.events(), "\n") + strings.Join(conditions, "\n")
	if !strings.Contains(out.String(), "Decision") {
		t.Fatalf("the logs hold no decisions; the capture does not work:\n%s", out.String())
	}
	for _, secret := range []string{testPassword, rotatedPassword, wrongPassword} {
		if strings.Contains(all, secret) {
			t.Errorf("a password appears in the logs, events or conditions")
		}
	}
}
