package brokers

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/wordstest"
)

// Admin problems and a stalled drain say what they mean in words.
func TestAdminMessagesAreInWords(t *testing.T) {
	wordstest.Check(t, "admin API", ExplainWait(step.Step{Kind: step.WaitForAdminAPI, Reason: step.AdminSilent}, admin.ErrUnavailable).Reason)
	wordstest.Check(t, "admin problem", func() string { _, m := Problem(errors.New("connection refused")); return m }())
	wordstest.Check(t, "admin problem logged elsewhere", func() string { _, m := Problem(nil); return m }())
	drain := &drainReport{status: admin.DecommissionStatus{ReplicasLeft: 3, MovingPartitions: 1, AllocationFailures: []string{"kafka/t/0"}}, stalled: true}
	wordstest.Check(t, "stalled drain", drain.describe(104))
}

// A TLS handshake refused for its certificates is a setting to fix, named as such, not "the
// admin API did not answer": the step says why it waits, and Degraded has its own reason.
func TestRefusedCertificateIsNotReportedAsAnOutage(t *testing.T) {
	err := fmt.Errorf("list brokers: %w", &admin.Error{Op: "list brokers", Kind: admin.ErrTLS, Err: errors.New("remote error: tls: certificate required")})
	if !WaitsOnAdmin(err) {
		t.Fatal("a refused TLS handshake does not make the cluster wait on the admin API")
	}
	reason, message := Problem(err)
	if reason != step.ReasonAdminAPITLSRefused || !strings.Contains(message, "client certificate") {
		t.Errorf("adminProblem = %s %q, want %s naming the client certificate", reason, message, step.ReasonAdminAPITLSRefused)
	}
	s := ExplainWait(step.Step{Kind: step.WaitForAdminAPI, Reason: step.AdminSilent}, err)
	if s.Reason == step.AdminSilent || !strings.Contains(s.Reason, "TLS handshake") {
		t.Errorf("the waiting step says %q, want the TLS handshake named", s.Reason)
	}
	wordstest.Check(t, "refused certificate", s.Reason)
}
