package race

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/pkg/controller/trace"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// fakeAPIServer answers writes with the object's metadata and the resourceVersion the test
// sets (a delete with the object as it was removed), and watches with one event followed by
// the end of the stream.
type fakeAPIServer struct {
	mu sync.Mutex
	rv string
}

func (s *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rv := s.rv
	s.mu.Unlock()
	info := harness.Classify(r)
	name := info.Name
	if name == "" {
		name = "created"
	}
	w.Header().Set("Content-Type", "application/json")
	if info.Verb == harness.VerbWatch {
		fmt.Fprintf(w, `{"type":"ADDED","object":{"metadata":{"name":"w","resourceVersion":%q}}}`+"\n", rv)
		return
	}
	fmt.Fprintf(w, `{"kind":"X","metadata":{"name":%q,"namespace":%q,"uid":"u-%s","resourceVersion":%q}}`, name, info.Namespace, name, rv)
}

func (s *fakeAPIServer) setRV(rv string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv = rv
}

func do(t *testing.T, client *http.Client, method, url string) string {
	t.Helper()
	return doIn(t, context.Background(), client, method, url)
}

func doIn(t *testing.T, ctx context.Context, client *http.Client, method, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// reads records, in reconcile ctx, one read per resourceVersion given ("" for not found).
func reads(hist *history.Recorder, ctx context.Context, resource, name string, rvs ...string) {
	for _, rv := range rvs {
		hist.Read(ctx, trace.Object{Resource: resource, Namespace: "ns", Name: name, UID: types.UID("u-" + name), ResourceVersion: rv, Found: rv != ""}, time.Now())
	}
}

// The recorder counts requests by verb and records the operator's writes in its history, where
// the checker judges its reads: a read older than the operator's own finished write is stale.
func TestRecorderCountsVerbsAndTheCheckerFindsReadsOlderThanTheLastWrite(t *testing.T) {
	api := &fakeAPIServer{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	hist := history.NewRecorder("operator")
	rec := NewRecorder(RecorderOptions{History: hist})
	client := &http.Client{Transport: rec.Wrap(http.DefaultTransport)}
	ctx := hist.BeginReconcile(context.Background(), 1, "brokerclusters", "ns", "a")
	bc := srv.URL + "/apis/broker-operator.dev/v1alpha1/namespaces/ns/brokerclusters/a"

	api.setRV("12")
	if body := doIn(t, ctx, client, "PATCH", bc+"/status"); !strings.Contains(body, `"12"`) {
		t.Fatalf("the client got %q: the recorder must hand the body on", body)
	}
	api.setRV("10") // an older write's answer, arriving late, must not lower what the reads are held to
	doIn(t, ctx, client, "PUT", bc)
	doIn(t, ctx, client, "GET", bc)
	api.setRV("5")
	doIn(t, ctx, client, "POST", srv.URL+"/apis/apps/v1/namespaces/ns/statefulsets")

	reads(hist, ctx, "brokerclusters", "a", "11", "12", "13") // stale, fresh, someone else wrote after
	reads(hist, ctx, "brokerclusters", "b", "1")              // never written by the operator
	reads(hist, ctx, "statefulsets", "created", "", "5")      // created, yet not found: stale; then found

	report := history.Check(history.Input{Histories: []*history.History{hist.History()}})
	if st := report.StaleReads(); st["brokerclusters"] != 1 || st["statefulsets"] != 1 || len(st) != 2 {
		t.Errorf("stale reads %v, want one of each\n%s", st, report.Summary())
	}
	if got := report.ReadsOf(); got["brokerclusters"] != 3 || got["statefulsets"] != 2 {
		t.Errorf("reads judged against the operator's writes %v, want 3 and 2", got)
	}
	want := map[string]int{harness.VerbPatch: 1, harness.VerbUpdate: 1, harness.VerbGet: 1, harness.VerbCreate: 1}
	got := rec.Requests()
	for _, v := range harness.Verbs {
		if got[v] != want[v] {
			t.Errorf("%s requests: %d, want %d", v, got[v], want[v])
		}
	}
}

// A delete answered with the object gone is recorded as the operator's own delete: a read
// that then finds nothing is not stale.
func TestRecorderForgetsWhatTheOperatorDeleted(t *testing.T) {
	api := &fakeAPIServer{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	hist := history.NewRecorder("operator")
	rec := NewRecorder(RecorderOptions{History: hist})
	client := &http.Client{Transport: rec.Wrap(http.DefaultTransport)}
	ctx := hist.BeginReconcile(context.Background(), 1, "brokerclusters", "ns", "a")
	api.setRV("7")
	doIn(t, ctx, client, "PUT", srv.URL+"/api/v1/namespaces/ns/pods/p")
	doIn(t, ctx, client, "DELETE", srv.URL+"/api/v1/namespaces/ns/pods/p")
	reads(hist, ctx, "pods", "p", "")
	report := history.Check(history.Input{Histories: []*history.History{hist.History()}})
	if n := report.StaleReads()["pods"]; n != 0 || report.ReadsOf()["pods"] != 1 {
		t.Errorf("%d stale reads of a deleted object (%d judged)\n%s", n, report.ReadsOf()["pods"], report.Summary())
	}
}

func TestRecorderDelaysWatchResponses(t *testing.T) {
	api := &fakeAPIServer{rv: "3"}
	srv := httptest.NewServer(api)
	defer srv.Close()
	clock := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	rec := NewRecorder(RecorderOptions{Lag: harness.Lag{Min: time.Second, Max: time.Second}, Clock: clock})
	client := &http.Client{Transport: rec.Wrap(http.DefaultTransport)}

	got := make(chan string, 1)
	go func() { got <- do(t, client, "GET", srv.URL+"/api/v1/namespaces/ns/pods?watch=true") }()
	// Wait until the reader waits on the clock for the event to be due.
	if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return clock.HasWaiters(), nil
	}); err != nil {
		t.Fatal("the watch body never waited for its lag")
	}
	select {
	case body := <-got:
		t.Fatalf("watch body %q read before the lag passed", body)
	default:
	}
	// Step until the event and the end of the stream are both due; each step waits until the
	// body is read or the reader waits on the clock again.
	var body string
	for body == "" {
		clock.Step(time.Second)
		err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			select {
			case body = <-got:
				return true, nil
			default:
				return clock.HasWaiters(), nil
			}
		})
		if err != nil {
			t.Fatal("the watch body was neither read nor waiting")
		}
	}
	if !strings.Contains(body, `"ADDED"`) {
		t.Fatalf("watch body %q", body)
	}
	if n := rec.Requests()[harness.VerbWatch]; n != 1 {
		t.Errorf("%d watch requests counted, want 1", n)
	}
}
