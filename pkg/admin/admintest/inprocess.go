package admintest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
)

// Transport answers requests to the brokers' URLs (Cluster.URLs, BrokerAddressTemplate) by
// calling the handler of the broker whose listener the URL names, in process, with no
// connection. Tests that make many thousands of calls use it to leave out the loopback round
// trip. A URL that names no broker's listener fails as a refused dial does. Where the listener
// would close the connection without an answer (a stopped pod, Fault.Refuse, Fault.DropReply),
// the round trip fails with io.EOF, as net/http's does. There is no TLS handshake: a cluster
// that requires client certificates (Security.ClientCAPEM) fails every round trip, as the
// certificate cannot be checked. Hang and Latency need a real connection to end early: under
// Transport only the request's context does.
func (s *Server) Transport() http.RoundTripper {
	return inProcess{s: s}
}

type inProcess struct{ s *Server }

func (t inProcess) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	if req.Body != nil {
		defer req.Body.Close()
	}
	t.s.mu.Lock()
	c, p, ok := t.s.brokerAt(req.URL.Host)
	t.s.mu.Unlock()
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("admintest: no broker listens on %s: %w", req.URL.Host, syscall.ECONNREFUSED)}
	}
	if len(c.sec.ClientCAPEM) > 0 {
		return nil, fmt.Errorf("admintest: %s/%s requires client certificates, which Transport cannot check; use the listeners", c.Namespace, c.Name)
	}
	defer func() {
		if r := recover(); r != nil {
			if r != http.ErrAbortHandler {
				panic(r)
			}
			resp, err = nil, fmt.Errorf("admintest: %s %s: connection closed without an answer: %w", req.Method, req.URL.Path, io.EOF)
		}
	}()
	rec := httptest.NewRecorder()
	t.s.brokerHandler(c.Namespace, c.Name, p).ServeHTTP(rec, req)
	resp = rec.Result()
	resp.Request = req
	return resp, nil
}
