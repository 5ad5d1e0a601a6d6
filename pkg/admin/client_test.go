package admin

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

const brokersBody = `[
 {"node_id":101,"num_cores":4,"membership_status":"active","is_alive":true,
  "internal_rpc_address":"c-0.c.ns.svc.cluster.local","internal_rpc_port":33145,"version":"v24.1.1",
  "disk_space":[{"path":"/var/lib/redpanda/data","free":1,"total":2}],"maintenance_status":{"draining":false}},
 {"node_id":102,"membership_status":"draining","is_alive":false,"internal_rpc_address":"c-1.c.ns.svc.cluster.local","internal_rpc_port":33145}
]`

func TestBrokersDecodesTheListAndSendsTheDocumentedRequest(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, brokersBody)
	c := mustClient(t, Config{URLs: []string{url + "/prefix/"}, Username: "admin", Password: "s3cret"})

	got, err := c.Brokers(context.Background())
	if err != nil {
		t.Fatalf("Brokers: %v", err)
	}
	want := []Broker{
		{NodeID: 101, MembershipStatus: MembershipActive, IsAlive: true, InternalRPCAddress: "c-0.c.ns.svc.cluster.local", InternalRPCPort: 33145, Version: "v24.1.1", Disk: DiskSpace{Known: true, Free: 1, Total: 2}},
		{NodeID: 102, MembershipStatus: MembershipDraining, IsAlive: false, InternalRPCAddress: "c-1.c.ns.svc.cluster.local", InternalRPCPort: 33145},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d brokers, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("broker %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	req := rec.last()
	if req.Method != http.MethodGet || req.URL.Path != "/prefix/v1/brokers" {
		t.Errorf("request = %s %s, want GET /prefix/v1/brokers", req.Method, req.URL.Path)
	}
	if u, p, ok := req.BasicAuth(); !ok || u != "admin" || p != "s3cret" {
		t.Errorf("basic auth = %q %q %v, want admin s3cret", u, p, ok)
	}
}

func TestNoBasicAuthWithoutUsername(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, `[]`)
	c := mustClient(t, Config{URLs: []string{url}})
	if _, err := c.Brokers(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h := rec.last().Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization header sent without credentials: %q", h)
	}
}

func TestUnknownMembershipStatusIsKeptAsGiven(t *testing.T) {
	_, url := newBroker(t, http.StatusOK, `[{"node_id":7,"membership_status":"removing-soon"}]`)
	got, err := mustClient(t, Config{URLs: []string{url}}).Brokers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got[0].MembershipStatus != "removing-soon" {
		t.Errorf("status = %q, want it kept as given", got[0].MembershipStatus)
	}
}

func TestCallsUseTheDocumentedPaths(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, `{"finished":false,"replicas_left":3,"allocation_failures":["kafka/t/0"],"partitions":[{"ns":"kafka","topic":"t","partition":0},{"ns":"kafka","topic":"t","partition":1}]}`)
	c := mustClient(t, Config{URLs: []string{url}})
	ctx := context.Background()

	if err := c.Decommission(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if r := rec.last(); r.Method != http.MethodPut || r.URL.Path != "/v1/brokers/5/decommission" {
		t.Errorf("decommission sent %s %s", r.Method, r.URL.Path)
	}
	if err := c.Recommission(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if r := rec.last(); r.Method != http.MethodPut || r.URL.Path != "/v1/brokers/5/recommission" {
		t.Errorf("recommission sent %s %s", r.Method, r.URL.Path)
	}
	st, err := c.DecommissionStatus(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if r := rec.last(); r.Method != http.MethodGet || r.URL.Path != "/v1/brokers/5/decommission" {
		t.Errorf("status sent %s %s", r.Method, r.URL.Path)
	}
	if st.Finished || st.ReplicasLeft != 3 || st.MovingPartitions != 2 || len(st.AllocationFailures) != 1 {
		t.Errorf("status = %+v", st)
	}
}

func TestStatusCodesMapToTypedErrors(t *testing.T) {
	type op struct {
		name string
		run  func(Client) error
	}
	ctx := context.Background()
	list := op{"list", func(c Client) error { _, err := c.Brokers(ctx); return err }}
	decom := op{"decommission", func(c Client) error { return c.Decommission(ctx, 3) }}
	recom := op{"recommission", func(c Client) error { return c.Recommission(ctx, 3) }}
	status := op{"status", func(c Client) error { _, err := c.DecommissionStatus(ctx, 3); return err }}
	broker := op{"broker", func(c Client) error { _, err := c.Broker(ctx, 3); return err }}
	health := op{"health", func(c Client) error { _, err := c.HealthOverview(ctx); return err }}
	maintOn := op{"maintenance-on", func(c Client) error { return c.EnableMaintenance(ctx, 3) }}
	maintOff := op{"maintenance-off", func(c Client) error { return c.DisableMaintenance(ctx, 3) }}

	cases := []struct {
		op     op
		status int
		body   string
		want   error
	}{
		{decom, 404, `{"message":"broker with id 3 not found","code":404}`, ErrBrokerNotFound},
		{decom, 400, `{"message":"can not update broker 3 state, invalid state transition requested","code":400}`, ErrAlreadyDecommissioned},
		{recom, 404, `{"message":"broker with id 3 not found","code":404}`, ErrBrokerNotFound},
		{recom, 400, `{"message":"can not update broker 3 state, invalid state transition requested","code":400}`, ErrNotDecommissioning},
		{status, 404, `{"message":"Node 3 does not exists","code":404}`, ErrBrokerNotFound},
		{status, 400, `{"message":"Node 3 is not decommissioning","code":400}`, ErrNotDecommissioning},
		{list, 404, `{"message":"Not found","code":404}`, ErrNotFound},
		{decom, 404, `{"message":"Not found","code":404}`, ErrNotFound},
		{decom, 404, `{"message":"broker with id 33 not found","code":404}`, ErrNotFound},
		{decom, 404, ``, ErrNotFound},
		{broker, 404, `{"message":"broker with id: 3 not found","code":404}`, ErrBrokerNotFound},
		{maintOn, 404, `{"message":"broker with id 3 not found","code":404}`, ErrBrokerNotFound},
		{maintOn, 400, `{"message":"can not update broker 3 state, invalid state transition requested","code":400}`, ErrInvalidStateTransition},
		{maintOn, 400, `{"message":"Maintenance mode may not be used on a single node cluster","code":400}`, ErrBadRequest},
		{maintOff, 404, `{"message":"broker with id 3 not found","code":404}`, ErrBrokerNotFound},
		{decom, 400, `{"message":"Unauthorized: malformed Authorization header","code":400}`, ErrBadRequest},
		{recom, 400, `{"message":"Broker id: x, must be an integer","code":400}`, ErrBadRequest},
		{status, 400, `{"message":"can not update broker 3 state, invalid state transition requested","code":400}`, ErrInvalidStateTransition},
		{list, 400, `oops`, ErrBadRequest},
		{list, 401, `{"message":"Unauthorized","code":401}`, ErrUnauthorized},
		{decom, 403, ``, ErrForbidden},
		{health, 503, `{"message":"Unable to get cluster health","code":503}`, ErrUnavailable},
		{maintOn, 504, `{"message":"Timeout: timeout","code":504}`, ErrUnavailable},
		{list, 500, `{"message":"boom","code":500}`, ErrUnavailable},
		{decom, 503, `{"message":"Not ready (no leader)","code":503}`, ErrUnavailable},
		{status, 504, ``, ErrUnavailable},
		{list, 429, ``, ErrUnavailable},
		{decom, 418, `teapot`, ErrBadResponse},
		{status, 302, ``, ErrBadResponse},
		{list, 200, `{"not":"a list"}`, ErrBadResponse},
		{status, 200, `[]`, ErrBadResponse},
		{list, 200, `[{"membership_status":"active"}]`, ErrBadResponse},
	}
	all := []error{ErrBrokerNotFound, ErrAlreadyDecommissioned, ErrNotDecommissioning, ErrInvalidStateTransition,
		ErrBadRequest, ErrNotFound, ErrUnavailable, ErrUnauthorized, ErrForbidden, ErrBadResponse}
	// A refused state transition also matches ErrInvalidStateTransition, whatever its Kind.
	alsoTransition := func(want error) bool { return want == ErrAlreadyDecommissioned || want == ErrNotDecommissioning }
	for _, tc := range cases {
		t.Run(tc.op.name+"/"+http.StatusText(tc.status)+"/"+tc.body, func(t *testing.T) {
			_, url := newBroker(t, tc.status, tc.body)
			err := tc.op.run(mustClient(t, Config{URLs: []string{url}}))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			transition := strings.Contains(tc.body, "invalid state transition")
			if transition && alsoTransition(tc.want) && !errors.Is(err, ErrInvalidStateTransition) {
				t.Errorf("err = %v does not match ErrInvalidStateTransition", err)
			}
			for _, other := range all {
				if other == ErrInvalidStateTransition && transition {
					continue
				}
				if other != tc.want && errors.Is(err, other) {
					t.Errorf("err also matches %v", other)
				}
			}
			var apiErr *Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || apiErr.URL == "" {
				t.Errorf("err = %#v, want an *Error carrying status %d and the URL", err, tc.status)
			}
		})
	}
}

func TestErrorCarriesTheBrokersMessage(t *testing.T) {
	_, url := newBroker(t, 400, `{"message":"can not update broker 3 state, invalid state transition requested","code":400}`)
	err := mustClient(t, Config{URLs: []string{url}}).Decommission(context.Background(), 3)
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Message != "can not update broker 3 state, invalid state transition requested" {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "invalid state transition") || !strings.Contains(err.Error(), "decommission broker 3") {
		t.Errorf("Error() = %q lacks the operation or message", err.Error())
	}
}

func TestNegativeNodeIDIsRefusedWithoutARequest(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, ``)
	c := mustClient(t, Config{URLs: []string{url}})
	for name, run := range map[string]func() error{
		"decommission": func() error { return c.Decommission(context.Background(), -1) },
		"recommission": func() error { return c.Recommission(context.Background(), -1) },
		"status":       func() error { _, err := c.DecommissionStatus(context.Background(), -1); return err },
	} {
		if err := run(); err == nil || !strings.Contains(err.Error(), "negative") {
			t.Errorf("%s(-1) = %v, want a clear error", name, err)
		}
	}
	if rec.count() != 0 {
		t.Errorf("%d requests sent for invalid input", rec.count())
	}
}

func TestOversizedBodyIsABadResponse(t *testing.T) {
	huge := "[" + strings.Repeat(`{"node_id":1,"membership_status":"active"},`, 1000) + `{"node_id":2,"membership_status":"active"}]`
	_, url := newBroker(t, http.StatusOK, huge)
	_, err := mustClient(t, Config{URLs: []string{url}, MaxBodyBytes: 1024}).Brokers(context.Background())
	if !errors.Is(err, ErrBadResponse) || !strings.Contains(err.Error(), "exceeds 1024 bytes") {
		t.Fatalf("err = %v, want a bad response naming the cap", err)
	}
}

func TestGetFailsOverToTheNextBroker(t *testing.T) {
	failing, failingURL := newBroker(t, http.StatusInternalServerError, `{"message":"boom","code":500}`)
	healthy, healthyURL := newBroker(t, http.StatusOK, `[]`)
	c := mustClient(t, Config{URLs: []string{refusingURL(t), hangingBroker(t), failingURL, healthyURL}, Timeout: time.Second})

	if _, err := c.Brokers(context.Background()); err != nil {
		t.Fatalf("Brokers: %v", err)
	}
	if failing.count() != 1 || healthy.count() != 1 {
		t.Errorf("requests: failing %d, healthy %d; want 1 each", failing.count(), healthy.count())
	}

	// The broker that answered is asked first next time.
	if _, err := c.Brokers(context.Background()); err != nil {
		t.Fatalf("Brokers: %v", err)
	}
	if failing.count() != 1 || healthy.count() != 2 {
		t.Errorf("second call went to failing %d, healthy %d; want the healthy broker first", failing.count(), healthy.count())
	}
}

func TestAllBrokersDownIsUnavailableAndNamesEveryAttempt(t *testing.T) {
	_, url := newBroker(t, http.StatusServiceUnavailable, `{"message":"Not ready","code":503}`)
	c := mustClient(t, Config{URLs: []string{refusingURL(t), url}})
	_, err := c.Brokers(context.Background())
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "all 2 brokers failed") || !strings.Contains(msg, "connection refused") || !strings.Contains(msg, "503") {
		t.Errorf("error does not describe the attempts: %v", msg)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans several lines: %q", err.Error())
	}
	var first *Error
	if !errors.As(err, &first) || first.Kind != ErrUnavailable {
		t.Errorf("errors.As found %+v", first)
	}
}

func TestPutFailsOverOnlyWhenTheBrokerCertainlyDidNotAct(t *testing.T) {
	cases := []struct {
		name      string
		first     func(t *testing.T) (string, *recorder)
		failsOver bool
	}{
		{"connection refused", func(t *testing.T) (string, *recorder) { return refusingURL(t), nil }, true},
		{"503", func(t *testing.T) (string, *recorder) {
			r, u := newBroker(t, http.StatusServiceUnavailable, ``)
			return u, r
		}, true},
		{"500", func(t *testing.T) (string, *recorder) {
			r, u := newBroker(t, http.StatusInternalServerError, ``)
			return u, r
		}, false},
		{"timeout", func(t *testing.T) (string, *recorder) { return hangingBroker(t), nil }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			firstURL, first := tc.first(t)
			second, secondURL := newBroker(t, http.StatusOK, ``)
			// Long enough for a loaded machine to answer, short enough for the hanging broker to time out.
			c := mustClient(t, Config{URLs: []string{firstURL, secondURL}, Timeout: time.Second})
			err := c.Decommission(context.Background(), 9)
			if tc.failsOver {
				if err != nil || second.count() != 1 {
					t.Fatalf("err = %v, second broker got %d requests; want the second broker to act", err, second.count())
				}
				return
			}
			if !errors.Is(err, ErrUnavailable) || second.count() != 0 {
				t.Fatalf("err = %v, second broker got %d requests; want ErrUnavailable and no second decommission", err, second.count())
			}
			if first != nil && first.count() != 1 {
				t.Errorf("first broker got %d requests, want 1", first.count())
			}
		})
	}
}

func TestTimeoutIsUnavailableAndWrapsTheDeadline(t *testing.T) {
	c := mustClient(t, Config{URLs: []string{hangingBroker(t)}, Timeout: 50 * time.Millisecond})
	_, err := c.Brokers(context.Background())
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrUnavailable wrapping context.DeadlineExceeded", err)
	}
}

func TestCallerCancellationStopsAtOnceAndIsNotBlamedOnTheBrokers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	release := make(chan struct{})
	rec := &recorder{status: http.StatusOK, body: `[]`}
	hang := newBlockingServer(t, started, release)
	c := mustClient(t, Config{URLs: []string{hang, mustURL(t, rec)}, Timeout: time.Hour})

	errc := make(chan error, 1)
	go func() { _, err := c.Brokers(ctx); errc <- err }()
	<-started
	cancel()
	err := <-errc
	close(release)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, ErrUnavailable) {
		t.Errorf("a cancelled call must not report the brokers unavailable: %v", err)
	}
	if rec.count() != 0 {
		t.Errorf("the next broker was tried after the caller gave up")
	}
}

func TestAlreadyCancelledContextSendsNothing(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, `[]`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := mustClient(t, Config{URLs: []string{url}}).Brokers(ctx)
	if !errors.Is(err, context.Canceled) || rec.count() != 0 {
		t.Fatalf("err = %v, requests = %d", err, rec.count())
	}
}
