package admintest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestBrokerFaultsMakeTheClientFailOver(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	joinAll(c, 3)
	c.SetBrokerFault(0, admintest.Fault{Status: http.StatusInternalServerError})
	c.SetBrokerFault(1, admintest.Fault{Refuse: true})
	cl := clientFor(t, c, 3)

	if _, err := cl.Brokers(context.Background()); err != nil {
		t.Fatalf("Brokers with broker 2 healthy: %v", err)
	}
	// net/http itself may resend a GET once on a reused connection that was closed unanswered,
	// so broker 1 can appear twice; the order of brokers and their answers is what matters.
	var got []string
	for _, call := range c.Calls() {
		entry := fmt.Sprintf("%d:%d:%s", call.Ordinal, call.Status, call.Fault)
		if len(got) == 0 || got[len(got)-1] != entry {
			got = append(got, entry)
		}
	}
	if want := []string{"0:500:status 500", "1:0:refuse", "2:200:"}; !slices.Equal(got, want) {
		t.Errorf("calls = %v, want %v", c.Calls(), want)
	}
}

func TestClusterAndServerFaultsAreSwitchableWhileRunning(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c, other := s.Cluster("ns", "c"), s.Cluster("ns", "other")
	joinAll(c, 2)
	joinAll(other, 1)
	cl, otherCl := clientFor(t, c, 2), clientFor(t, other, 1)
	ctx := context.Background()

	c.SetFault(admintest.Fault{Status: http.StatusServiceUnavailable})
	if _, err := cl.Brokers(ctx); !errors.Is(err, admin.ErrUnavailable) {
		t.Fatalf("cluster fault: %v", err)
	}
	if _, err := otherCl.Brokers(ctx); err != nil {
		t.Fatalf("a cluster fault leaked to another cluster: %v", err)
	}
	c.SetFault(admintest.Fault{})
	if _, err := cl.Brokers(ctx); err != nil {
		t.Fatalf("cleared cluster fault: %v", err)
	}

	s.SetFault(admintest.Fault{Status: http.StatusBadGateway})
	if _, err := otherCl.Brokers(ctx); !errors.Is(err, admin.ErrUnavailable) {
		t.Fatalf("server fault: %v", err)
	}
	// The most specific fault wins.
	other.SetBrokerFault(0, admintest.Fault{Latency: time.Millisecond})
	if _, err := otherCl.Brokers(ctx); err != nil {
		t.Fatalf("broker fault should override the server's: %v", err)
	}
	s.SetFault(admintest.Fault{})
}

func TestFaultsLimitedByMethodAndCount(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 1)
	cl := clientFor(t, c, 1)
	ctx := context.Background()

	c.SetFault(admintest.Fault{Status: http.StatusServiceUnavailable, Method: http.MethodPut, Times: 2})
	if _, err := cl.Brokers(ctx); err != nil {
		t.Fatalf("a PUT-only fault hit a GET: %v", err)
	}
	for range 2 {
		if err := cl.Decommission(ctx, ids[0]); !errors.Is(err, admin.ErrUnavailable) {
			t.Fatalf("faulted decommission: %v", err)
		}
	}
	if err := cl.Decommission(ctx, ids[0]); err != nil {
		t.Fatalf("the fault should have run out after 2 requests: %v", err)
	}
	if got := s.DoubleDecommissions(); len(got) != 0 {
		t.Errorf("requests stopped by a fault counted as decommissions: %q", got)
	}
}

func TestHangHoldsTheRequestUntilTheClientTimesOut(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	holding := make(chan struct{})
	c.SetBrokerFault(0, admintest.Fault{Hang: true, Holding: holding})
	cfg := c.Config(2)
	cfg.Timeout = time.Hour // the client gives up through deadlineWhenHeld, never by the clock
	cl, err := admin.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}

	// How the client classifies its own per-request timeout is pkg/admin's test
	// (TestTimeoutIsUnavailableAndWrapsTheDeadline); here the broker's side: held until the client gave up.
	err = cl.Decommission(deadlineWhenHeld(holding), ids[1])
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("decommission through a hanging broker: %v", err)
	}
	if _, err := cl.Brokers(deadlineWhenHeld(holding)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Brokers through a hanging broker: %v", err)
	}
	s.Close() // waits for the held handlers, so their log entries are in
	var hung, decommissions int
	for _, call := range c.Calls() {
		// The broker never answered: the client gave up first. Whether its handler saw the
		// client leave or the Close that came right after is a race the test leaves open.
		if strings.Contains(call.Fault, "hang") && (strings.Contains(call.Fault, "client gave up") || strings.Contains(call.Fault, "server closed")) {
			hung++
		}
		if call.Method == http.MethodPut {
			decommissions++
		}
	}
	if hung != 2 || decommissions != 1 {
		t.Errorf("calls = %v; want 2 hung calls and one decommission attempt", c.Calls())
	}
	if _, ok := c.NodeID(1); !ok {
		t.Error("a hung decommission must not have acted")
	}
}

// deadlineWhenHeld returns a context whose deadline passes the moment the broker starts holding
// the request: the client gives up as on a per-request timeout, but only once the request has
// surely reached the broker, however slow the machine.
func deadlineWhenHeld(holding <-chan struct{}) context.Context {
	ctx := &heldDeadline{Context: context.Background(), done: make(chan struct{})}
	go func() {
		<-holding
		close(ctx.done)
	}()
	return ctx
}

type heldDeadline struct {
	context.Context
	done chan struct{}
}

func (c *heldDeadline) Done() <-chan struct{} { return c.done }

func (c *heldDeadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestLatencyDelaysButStillAnswers(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	c.SetFault(admintest.Fault{Latency: 20 * time.Millisecond})
	start := time.Now()
	if _, err := clientFor(t, c, 1).Brokers(context.Background()); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 20*time.Millisecond {
		t.Errorf("answered after %v, before the injected latency", elapsed)
	}

	c.SetFault(admintest.Fault{Latency: time.Hour})
	cfg := c.Config(1)
	cfg.Timeout = 20 * time.Millisecond
	cl, _ := admin.NewClient(cfg)
	if _, err := cl.Brokers(context.Background()); !errors.Is(err, admin.ErrUnavailable) {
		t.Fatalf("latency beyond the timeout: %v", err)
	}
}

func TestPodsThatAreNotRunningRefuseConnections(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	c.Down(0)
	cl := clientFor(t, c, 2)
	if _, err := cl.Brokers(context.Background()); err != nil {
		t.Fatalf("Brokers should fail over from the down pod: %v", err)
	}
	// A connection closed unanswered is ambiguous for a PUT: no second broker is asked.
	if err := cl.Decommission(context.Background(), ids[1]); err != nil {
		t.Fatalf("the client should now start with the live broker: %v", err)
	}
	unknown := clientFor(t, s.Cluster("ns", "empty"), 1)
	if _, err := unknown.Brokers(context.Background()); !errors.Is(err, admin.ErrUnavailable) {
		t.Fatalf("a cluster with no pods: %v", err)
	}
	calls := c.Calls()
	if calls[0].Fault != "pod not running" || calls[0].Status != 0 {
		t.Errorf("first call = %v, want a refused one", calls[0])
	}
}

func TestRefusedPutIsNotSentToAnotherBroker(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	c.SetBrokerFault(0, admintest.Fault{Refuse: true})
	err := clientFor(t, c, 2).Decommission(context.Background(), ids[1])
	if !errors.Is(err, admin.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if n := len(c.Calls()); n != 1 {
		t.Errorf("%d calls; a PUT whose connection was cut must not be repeated elsewhere: %v", n, c.Calls())
	}
}

func TestCloseReleasesHeldRequests(t *testing.T) {
	s := admintest.NewServer(admintest.Options{})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	holding := make(chan struct{})
	c.SetFault(admintest.Fault{Hang: true, Holding: holding})
	cl, _ := admin.NewClient(admin.Config{URLs: c.URLs(1), Timeout: time.Hour})
	errc := make(chan error, 1)
	go func() { _, err := cl.Brokers(context.Background()); errc <- err }()
	<-holding
	s.Close()
	if err := <-errc; !errors.Is(err, admin.ErrUnavailable) {
		t.Fatalf("held request after Close: %v", err)
	}
	if calls := c.Calls(); len(calls) != 1 || !strings.Contains(calls[0].Fault, "server closed") {
		t.Errorf("calls = %v", calls)
	}
}

func TestDropReplyActsButLosesTheAnswer(t *testing.T) {
	s, _ := newSim(t, admintest.Options{DrainTime: time.Minute})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	cl := clientFor(t, c, 2)
	ctx := context.Background()

	c.SetFault(admintest.Fault{DropReply: true, Times: 1})
	if err := cl.Decommission(ctx, ids[1]); !errors.Is(err, admin.ErrUnavailable) {
		t.Fatalf("decommission with a lost answer: %v, want ErrUnavailable", err)
	}
	// The decommission took effect: a careful caller sees that before asking again.
	assertStatus(t, cl, ids[1], admin.MembershipDraining)
	if got := s.DoubleDecommissions(); len(got) != 0 {
		t.Fatalf("DoubleDecommissions = %q", got)
	}
	// A careless one asks again, and that is what the check is for.
	if err := cl.Decommission(ctx, ids[1]); !errors.Is(err, admin.ErrAlreadyDecommissioned) {
		t.Fatalf("second decommission: %v", err)
	}
	if got := s.DoubleDecommissions(); len(got) != 1 {
		t.Errorf("DoubleDecommissions = %q, want the repeated call", got)
	}
	if first := c.Calls()[0]; first.Status != 0 || !strings.Contains(first.Fault, "drop reply (the cluster answered 200)") {
		t.Errorf("first call logged as %v", first)
	}
}
