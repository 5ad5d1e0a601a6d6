package admintest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
)

// Transport answers requests to the shared listener's URLs (AddressTemplate, Cluster.SharedURLs)
// by calling the server's handler in process, with no connection. Tests that make many
// thousands of calls use it to leave out the loopback round trip. Where the listener would
// close the connection without an answer (a stopped pod, Fault.Refuse, Fault.DropReply), the
// round trip fails with io.EOF, as net/http's does. Hang and Latency need a real connection
// to end early: under Transport only the request's context does.
func (s *Server) Transport() http.RoundTripper {
	return inProcess{handler: http.HandlerFunc(s.serve)}
}

type inProcess struct{ handler http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	if req.Body != nil {
		defer req.Body.Close()
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
	t.handler.ServeHTTP(rec, req)
	resp = rec.Result()
	resp.Request = req
	return resp, nil
}
