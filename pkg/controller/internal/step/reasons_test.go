package controller

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// codeWords finds what only a reader of the source understands: the state machine's letters
// (C, D, B, R) standing alone, comparisons, and formatting mistakes.
var codeWords = regexp.MustCompile(`\b[A-Z]\b|[<>≥≤]|%!|current \d+, desired`)

func checkWords(t *testing.T, what, text string) {
	t.Helper()
	if text == "" {
		t.Errorf("%s: no message", what)
	}
	if m := codeWords.FindString(text); m != "" {
		t.Errorf("%s: %q uses %q", what, text, m)
	}
}

// storyObservation is a cluster of 5 brokers, pods example-0 to example-4, every field set, so
// that each row's reason has all it could name.
func storyObservation() observation {
	return observation{
		Cluster: "example", Desired: 2, Current: 5, Decommissioning: ptr.To[int32](104), Target: memberDraining,
		Victim: victim{Ordinal: 4, ID: 104, IDKnown: true, Status: memberActive}, AdminCheck: true,
		Health: health{Known: true, Problems: []string{"brokers down: [101]"}},
		Rollout: rollout{
			Restart:  &v1alpha1.BrokerRestart{Pod: "example-2", Ordinal: 2, NodeID: 102, Step: v1alpha1.RestartDraining, PodUID: "u2"},
			Outdated: 2, Updated: 3, Revision: "r2", NextPod: "example-1", NextPodUID: "u1",
			Next: victim{Ordinal: 1, ID: 101, IDKnown: true, Status: memberActive},
		},
	}
}

// Every row of every table gives a reason in words, and names the broker and its pod.
func TestReasonsAreInWords(t *testing.T) {
	o := storyObservation()
	tables := []struct {
		name   string
		rows   []transition
		reason func(transition, observation) string
	}{
		{"scaling", transitions, scaleReason},
		{"restart", restartTransitions, restartReason},
		{"rollout", rolloutTransitions, rolloutReason},
	}
	for _, table := range tables {
		for _, row := range table.rows {
			if row.Then == stepNone {
				continue
			}
			what := table.name + " " + row.State + ": " + row.When
			checkWords(t, what+" (When)", row.When)
			reason := table.reason(row, o)
			checkWords(t, what, reason)
			if reason == row.When {
				t.Errorf("%s: %s has no sentence of its own, only the When column", what, row.Then)
			}
			if !strings.Contains(reason, "example-") && !strings.Contains(reason, " brokers") && row.Then != stepWaitAdmin {
				t.Errorf("%s: %q names no pod and no count", what, reason)
			}
		}
	}
}

// Conditions, held-back steps, fact errors and a stalled drain say what they mean in words.
func TestMessagesAreInWords(t *testing.T) {
	o := storyObservation()
	bc := newBrokerCluster(2)
	bc.Name = "example"
	bc.Status = v1alpha1.BrokerClusterStatus{CurrentReplicas: 5, DecommissioningBroker: ptr.To[int32](104), Restart: o.Rollout.Restart}
	for kind := range steps {
		s := step{Kind: kind, Broker: ptr.To[int32](104), Reason: "the reason"}
		var adminErr error
		if kind == stepWaitAdmin {
			adminErr = fmt.Errorf("list brokers: %w", admin.ErrUnavailable)
		}
		current, decommissioning, lc := statusChange(bc, s, o, true)
		st := nextStatus(bc, s, current, decommissioning, 3, lc, adminErr, time.Now())
		for _, c := range st.Conditions {
			checkWords(t, string(kind)+" "+c.Type, c.Message)
		}
		checkWords(t, string(kind)+" held back", stepSubject(s))
	}
	checkWords(t, "scaling up", scalingCondition("example", step{}, 2, 4, nil).Message)
	checkWords(t, "recommissioning", scalingCondition("example", step{}, 3, 3, ptr.To[int32](102)).Message)
	for _, f := range []fact{factHealthGate, factOthersUp, factPodReady, factNoOtherDrain, factBrokerLeft} {
		checkWords(t, "fact "+string(f), (&factError{Fact: f, Why: "broker 101 is down"}).Error())
	}
	checkWords(t, "admin API", explainWait(step{Kind: stepWaitAdmin, Reason: adminSilent}, admin.ErrUnavailable).Reason)
	checkWords(t, "admin problem", func() string { _, m := adminProblem(errors.New("connection refused")); return m }())
	checkWords(t, "admin problem logged elsewhere", func() string { _, m := adminProblem(nil); return m }())
	drain := &drainReport{status: admin.DecommissionStatus{ReplicasLeft: 3, MovingPartitions: 1, AllocationFailures: []string{"kafka/t/0"}}, stalled: true}
	checkWords(t, "stalled drain", drain.describe(104))
}

// A TLS handshake refused for its certificates is a setting to fix, named as such, not "the
// admin API did not answer": the step says why it waits, and Degraded has its own reason.
func TestRefusedCertificateIsNotReportedAsAnOutage(t *testing.T) {
	err := fmt.Errorf("list brokers: %w", &admin.Error{Op: "list brokers", Kind: admin.ErrTLS, Err: errors.New("remote error: tls: certificate required")})
	if !waitsOnAdmin(err) {
		t.Fatal("a refused TLS handshake does not make the cluster wait on the admin API")
	}
	reason, message := adminProblem(err)
	if reason != ReasonAdminAPITLSRefused || !strings.Contains(message, "client certificate") {
		t.Errorf("adminProblem = %s %q, want %s naming the client certificate", reason, message, ReasonAdminAPITLSRefused)
	}
	s := explainWait(step{Kind: stepWaitAdmin, Reason: adminSilent}, err)
	if s.Reason == adminSilent || !strings.Contains(s.Reason, "TLS handshake") {
		t.Errorf("the waiting step says %q, want the TLS handshake named", s.Reason)
	}
	checkWords(t, "refused certificate", s.Reason)
}

func TestBrokersRemainAgreesWithTheCount(t *testing.T) {
	for n, want := range map[int32]string{0: "0 brokers remain", 1: "1 broker remains", 2: "2 brokers remain"} {
		if got := brokersRemain(n); got != want {
			t.Errorf("brokersRemain(%d) = %q, want %q", n, got, want)
		}
	}
}
