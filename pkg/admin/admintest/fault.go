package admintest

import (
	"fmt"
	"strings"
	"time"
)

// Fault changes how brokers answer. The zero Fault means "answer normally". When several are
// set, the most specific one that applies to a request wins: broker, then cluster, then server.
type Fault struct {
	// Refuse closes the connection without an answer, as a broker that is down would.
	Refuse bool
	// Hang holds the request without answering until the client gives up (or the server closes).
	Hang bool
	// Latency delays the answer by this much wall-clock time.
	Latency time.Duration
	// Status, when not zero, answers with this HTTP status (after Latency) instead of acting.
	Status int
	// DropReply lets the broker act on the request, then closes the connection unanswered: an
	// answer lost on the way, after which the client cannot know whether the call took effect.
	DropReply bool
	// Redirect answers 307 to the same request at the controller leader (server.cc
	// redirect_to_leader, as when leadership moved under a forwarded call), without acting; the
	// leader itself answers normally. Applied after authentication.
	Redirect bool
	// Timeout holds the request for Options.NodeOperationTimeout by the simulator's clock, then
	// answers 504 without acting. Applied after authentication.
	Timeout bool
	// Method limits the fault to requests with this HTTP method ("" means every method).
	Method string
	// Times, when positive, limits the fault to that many requests; then it clears itself.
	Times int
	// Holding, when set, receives a value each time a Hang or Latency fault starts holding a
	// request, so a test knows the request is in flight without sleeping.
	Holding chan<- struct{}
}

// IsZero reports whether f changes nothing.
func (f Fault) IsZero() bool {
	return !f.Refuse && !f.Hang && f.Latency == 0 && f.Status == 0 && !f.DropReply && !f.Redirect && !f.Timeout
}

// appliesTo reports whether f shapes a request with this method.
func (f Fault) appliesTo(method string) bool {
	return !f.IsZero() && (f.Method == "" || strings.EqualFold(f.Method, method))
}

// String names the fault for the call log.
func (f Fault) String() string {
	var parts []string
	if f.Refuse {
		parts = append(parts, "refuse")
	}
	if f.Hang {
		parts = append(parts, "hang")
	}
	if f.Latency > 0 {
		parts = append(parts, fmt.Sprintf("latency %v", f.Latency))
	}
	if f.Status != 0 {
		parts = append(parts, fmt.Sprintf("status %d", f.Status))
	}
	if f.DropReply {
		parts = append(parts, "drop reply")
	}
	if f.Redirect {
		parts = append(parts, "redirect to leader")
	}
	if f.Timeout {
		parts = append(parts, "timeout")
	}
	return strings.Join(parts, "+")
}

// faultSlot holds one switchable fault; callers hold Server.mu.
type faultSlot struct{ f Fault }

// take returns the fault if it applies to method, counting down Times.
func (s *faultSlot) take(method string) (Fault, bool) {
	if !s.f.appliesTo(method) {
		return Fault{}, false
	}
	f := s.f
	if s.f.Times > 0 {
		s.f.Times--
		if s.f.Times == 0 {
			s.f = Fault{}
		}
	}
	return f, true
}
