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

	"k8s.io/apimachinery/pkg/util/wait"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/test/harness"
)

// fakeAPIServer answers writes with the object's metadata and the resourceVersion the test
// sets, and watches with one event followed by the end of the stream.
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
	fmt.Fprintf(w, `{"kind":"X","metadata":{"name":%q,"namespace":%q,"resourceVersion":%q}}`, name, info.Namespace, rv)
}

func (s *fakeAPIServer) setRV(rv string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv = rv
}

func do(t *testing.T, client *http.Client, method, url string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader("{}"))
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

func TestRecorderCountsVerbsAndFindsReadsOlderThanTheLastWrite(t *testing.T) {
	api := &fakeAPIServer{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	rec := NewRecorder(RecorderOptions{})
	client := &http.Client{Transport: rec.Wrap(http.DefaultTransport)}
	bc := srv.URL + "/apis/broker-operator.dev/v1alpha1/namespaces/ns/brokerclusters/a"

	api.setRV("12")
	if body := do(t, client, "PATCH", bc+"/status"); !strings.Contains(body, `"12"`) {
		t.Fatalf("the client got %q: the recorder must hand the body on", body)
	}
	api.setRV("10") // an older write's answer, arriving late, must not roll the record back
	do(t, client, "PUT", bc)
	do(t, client, "GET", bc)
	api.setRV("5")
	do(t, client, "POST", srv.URL+"/apis/apps/v1/namespaces/ns/statefulsets")

	if rv, ok := rec.LastWrite("brokerclusters", "ns", "a"); !ok || rv != "12" {
		t.Fatalf("last write to the BrokerCluster %q, %v; want 12", rv, ok)
	}
	rec.ReadHook("brokerclusters", "ns", "a", "11")   // stale
	rec.ReadHook("brokerclusters", "ns", "a", "12")   // fresh
	rec.ReadHook("brokerclusters", "ns", "a", "13")   // someone else wrote after
	rec.ReadHook("brokerclusters", "ns", "b", "1")    // never written by the operator
	rec.ReadHook("statefulsets", "ns", "created", "") // created, yet not found: stale
	rec.ReadHook("statefulsets", "ns", "created", "5")

	st := rec.Stats()
	if st.StaleReads["brokerclusters"] != 1 || st.StaleReads["statefulsets"] != 1 || st.TotalStaleReads() != 2 {
		t.Errorf("stale reads %v, want one of each", st.StaleReads)
	}
	if st.Reads["brokerclusters"] != 4 || st.Reads["statefulsets"] != 2 {
		t.Errorf("reads %v", st.Reads)
	}
	want := map[string]int{harness.VerbPatch: 1, harness.VerbUpdate: 1, harness.VerbGet: 1, harness.VerbCreate: 1}
	for _, v := range harness.Verbs {
		if st.Requests[v] != want[v] {
			t.Errorf("%s requests: %d, want %d", v, st.Requests[v], want[v])
		}
	}
	if st.TotalRequests() != 4 || st.UnparsedWrites != 0 {
		t.Errorf("total %d, unparsed writes %d", st.TotalRequests(), st.UnparsedWrites)
	}
}

func TestRecorderForgetsWhatTheOperatorDeleted(t *testing.T) {
	api := &fakeAPIServer{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	rec := NewRecorder(RecorderOptions{})
	client := &http.Client{Transport: rec.Wrap(http.DefaultTransport)}
	api.setRV("7")
	do(t, client, "PUT", srv.URL+"/api/v1/namespaces/ns/pods/p")
	do(t, client, "DELETE", srv.URL+"/api/v1/namespaces/ns/pods/p")
	rec.ReadHook("pods", "ns", "p", "")
	rec.ReadHook("pods", "ns", "p", "3")
	if n := rec.Stats().TotalStaleReads(); n != 0 {
		t.Errorf("%d stale reads of a deleted object", n)
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
	if n := rec.Stats().Requests[harness.VerbWatch]; n != 1 {
		t.Errorf("%d watch requests counted, want 1", n)
	}
}
