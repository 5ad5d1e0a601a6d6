package step

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A rollout that would restart brokers onto listeners that require SASL while the superuser is
// not in place restarts nothing: Degraded names the security problem, one Warning event tells
// it, the preview lists no restart, and the superuser in place ends the hold with a Normal event.
func TestASASLRolloutWaitsForTheSuperuser(t *testing.T) {
	why := `user "operator" exists with another password or mechanism`
	o := Observation{Cluster: "rp", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Outdated: 3, AllReady: true,
		Next: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}, NextPod: "rp-2", NextPodUID: "u2", SuperuserHold: why}}
	s := Decide(o)
	if s.Kind != HoldForSuperuser || !strings.Contains(s.Reason, why) || !strings.Contains(s.Reason, "SecurityReady") {
		t.Fatalf("decide = %s (%q), want %s naming the problem and what ends it", s.Kind, s.Reason, HoldForSuperuser)
	}
	bc := &v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{Replicas: 3}, Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 3}}
	st := NextStatus(bc, s, Write{Current: 3}, time.Now())
	if d := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded); d == nil || d.Reason != ReasonSASLWaitsForSuperuser || d.Message != s.Reason {
		t.Fatalf("Degraded = %+v, want %s with the step's reason", d, ReasonSASLWaitsForSuperuser)
	}
	if r := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionRestarting); r == nil || r.Message != s.Reason {
		t.Errorf("Restarting = %+v, want the hold's reason", r)
	}
	events := Events(s, &bc.Status, &st)
	if len(events) != 1 || events[0].Type != corev1.EventTypeWarning || events[0].Reason != string(HoldForSuperuser) {
		t.Fatalf("events = %+v, want one Warning", events)
	}
	if again := Events(s, &st, &st); len(again) != 0 {
		t.Errorf("the same hold polled again: %+v, want no event", again)
	}

	o.Rollout.SuperuserHold = ""
	s2 := Decide(o)
	after := NextStatus(&v1alpha1.BrokerCluster{Spec: bc.Spec, Status: st}, s2, Write{Current: 3, Lifecycle: Lifecycle{Restart: s2.Restart}}, time.Now())
	ended := Events(s2, &st, &after)
	if s2.Kind != StartRestart || len(ended) != 2 || ended[0].Reason != string(HoldForSuperuser) || ended[0].Type != corev1.EventTypeNormal {
		t.Fatalf("decide = %s, events %+v; want %s after a Normal event that the hold ended", s2.Kind, ended, StartRestart)
	}
}

// The preview of a rollout held for the superuser lists no restart, and a note says why.
func TestPreviewOfARolloutHeldForTheSuperuserListsNoRestart(t *testing.T) {
	c := newPreviewCluster(3, 3, 0, 1, 2)
	o := withNext(c.observe(nil, Health{Known: true, Controller: 101}))
	o.Rollout.SuperuserHold = "the Secret admin-user has no password"
	if s := Decide(o); s.Kind != HoldForSuperuser {
		t.Fatalf("decided %s (%s), want %s", s.Kind, s.Reason, HoldForSuperuser)
	}
	p := Preview(c.bc, o, RecordedOf(c.bc))
	checkPreview(t, p, nil)
	if !hasNote(p, "waits for the superuser", o.Rollout.SuperuserHold) {
		t.Errorf("notes %q: want the hold's reason", p.Notes)
	}
}
