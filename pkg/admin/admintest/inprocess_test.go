package admintest_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// Transport must answer as each broker's listener does, fail as a closed connection does where
// the listener closes one (a stopped pod), and as a refused dial where no broker listens.
func TestTransportAnswersAsTheListeners(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("team-a", "redpanda")
	joinAll(c, 3)
	c.Down(2)
	urls := c.URLs(3)
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
	var op *net.OpError
	for _, u := range []string{"http://127.0.0.1:" + strconv.Itoa(c.AdminPort()+16), "http://127.0.0.2:" + strconv.Itoa(c.AdminPort()), "http://127.0.0.1:80"} {
		if _, _, err := get(inProcess, u+"/v1/node_config"); !errors.As(err, &op) || op.Op != "dial" || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("GET %s, where no broker listens, in process: %v; want a refused dial", u, err)
		}
	}
}

// Transport does no handshake, so it cannot check a client certificate: it must not answer for
// a cluster that requires one.
func TestTransportRefusesClustersThatRequireClientCertificates(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	caPEM, _, _ := newClientPKI(t)
	c, err := s.NewCluster("ns", "mtls", admintest.Security{TLS: true, ClientCAPEM: caPEM})
	if err != nil {
		t.Fatal(err)
	}
	joinAll(c, 1)
	resp, err := (&http.Client{Transport: s.Transport()}).Get(c.URLs(1)[0] + "/v1/status/ready")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("in process: %d, want an error", resp.StatusCode)
	}
}
