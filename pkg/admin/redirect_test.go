package admin

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// redirector answers every request with a 307 to target plus the request's path, as Redpanda's
// redirect_to_leader does (it appends ?redirect=N).
func redirector(t *testing.T, target *string) (*recorder, string) {
	t.Helper()
	rec := &recorder{}
	url := mustURL(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.requests = append(rec.requests, r)
		rec.mu.Unlock()
		w.Header().Set("Location", *target+r.URL.Path+"?redirect=1")
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	return rec, url
}

func TestRedirectToABrokerOfTheClusterIsFollowedWithCredentials(t *testing.T) {
	leader, leaderURL := newBroker(t, http.StatusOK, `{}`)
	follower, followerURL := redirector(t, &leaderURL)
	c := mustClient(t, Config{URLs: []string{followerURL, leaderURL}, Username: "admin", Password: "pw"})

	if err := c.Decommission(context.Background(), 5); err != nil {
		t.Fatalf("Decommission: %v", err)
	}
	if follower.count() != 1 || leader.count() != 1 {
		t.Fatalf("follower got %d requests, leader %d; want 1 each", follower.count(), leader.count())
	}
	r := leader.last()
	if r.Method != http.MethodPut || r.URL.Path != "/v1/brokers/5/decommission" || r.URL.Query().Get("redirect") != "1" {
		t.Errorf("leader got %s %s, want the same request as redirected", r.Method, r.URL)
	}
	if u, p, ok := r.BasicAuth(); !ok || u != "admin" || p != "pw" {
		t.Errorf("leader got credentials %q %q %v, want them re-sent", u, p, ok)
	}
}

func TestRedirectOutsideTheClusterIsRefused(t *testing.T) {
	stranger, strangerURL := newBroker(t, http.StatusOK, `{}`)
	_, followerURL := redirector(t, &strangerURL)
	c := mustClient(t, Config{URLs: []string{followerURL}, Username: "admin", Password: "pw"})

	err := c.Decommission(context.Background(), 5)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "not one of this cluster's broker URLs") {
		t.Fatalf("err = %v, want a clear refusal", err)
	}
	if stranger.count() != 0 {
		t.Fatalf("the request (and its credentials) went to a host outside the cluster")
	}
}

func TestARefusedRedirectLetsAPutMoveOnToTheNextBroker(t *testing.T) {
	// The broker that redirects did not act, so the next broker may be asked.
	_, strangerURL := newBroker(t, http.StatusOK, `{}`)
	_, followerURL := redirector(t, &strangerURL)
	leader, leaderURL := newBroker(t, http.StatusOK, `{}`)
	c := mustClient(t, Config{URLs: []string{followerURL, leaderURL}})
	if err := c.Recommission(context.Background(), 5); err != nil {
		t.Fatalf("Recommission: %v", err)
	}
	if leader.count() != 1 {
		t.Fatalf("leader got %d requests, want 1", leader.count())
	}
}

func TestASecondRedirectIsNotFollowed(t *testing.T) {
	var aURL, bURL string
	a, u1 := redirector(t, &bURL)
	b, u2 := redirector(t, &aURL)
	aURL, bURL = u1, u2
	c := mustClient(t, Config{URLs: []string{aURL}})
	err := c.EnableMaintenance(context.Background(), 5)
	// The client's own list has only a, so b is outside; with both listed, the second hop stops.
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	c = mustClient(t, Config{URLs: []string{aURL, bURL}})
	before := a.count() + b.count()
	err = c.EnableMaintenance(context.Background(), 5)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "leadership is moving") {
		t.Fatalf("err = %v, want ErrUnavailable naming moving leadership", err)
	}
	// Each of the two brokers is tried once, each following one redirect: 4 requests.
	if n := a.count() + b.count() - before; n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}

func TestNodeConfigNeverFollowsARedirect(t *testing.T) {
	other, otherURL := newBroker(t, http.StatusOK, `{"node_id":1}`)
	_, url := redirector(t, &otherURL)
	_, err := mustClient(t, Config{URLs: []string{url, otherURL}}).NodeConfig(context.Background(), 0)
	if !errors.Is(err, ErrUnavailable) || other.count() != 0 {
		t.Fatalf("err = %v, other broker asked %d times; want no answer from another broker", err, other.count())
	}
}
