package admintest_test

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// Transport must answer as the shared listener does, and fail as a closed connection does
// where the listener closes one (a stopped pod).
func TestTransportAnswersAsTheSharedListener(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("team-a", "redpanda")
	joinAll(c, 3)
	c.Down(2)
	urls := c.SharedURLs(3)
	inProcess := &http.Client{Transport: s.Transport()}

	get := func(client *http.Client, url string) (int, string, error) {
		resp, err := client.Get(url)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	for _, path := range []string{"/v1/brokers", "/v1/node_config", "/v1/cluster/health_overview", "/v1/brokers/9999"} {
		wantStatus, wantBody, err := get(http.DefaultClient, urls[0]+path)
		if err != nil {
			t.Fatal(err)
		}
		status, body, err := get(inProcess, urls[0]+path)
		if err != nil || status != wantStatus || body != wantBody {
			t.Errorf("GET %s in process: %d %q, %v; over the listener: %d %q", path, status, body, err, wantStatus, wantBody)
		}
	}
	if _, _, err := get(inProcess, urls[2]+"/v1/node_config"); !errors.Is(err, io.EOF) {
		t.Errorf("GET from a stopped pod in process: %v, want io.EOF as a closed connection gives", err)
	}
}
