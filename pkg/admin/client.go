package admin

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"
)

// maxErrorBodyBytes caps how much of an error response is read for its message.
const maxErrorBodyBytes = 64 << 10

// sharedTransport serves every plain-HTTP client that brings no Transport of its own, so
// clients built per reconcile still reuse connections.
var sharedTransport = newTransport(nil)

func newTransport(tc *tls.Config) *http.Transport {
	return &http.Transport{
		Proxy:                 nil, // brokers are reached directly, never through an environment proxy
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tc,
		TLSHandshakeTimeout:   5 * time.Second,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     tc != nil,
	}
}

// httpClient implements Client over HTTP.
type httpClient struct {
	bases              []*url.URL
	http               *http.Client
	timeout            time.Duration
	maxBody            int64
	username, password string
	// preferred is the index of the broker that answered last; calls start there so that a dead
	// first broker does not cost a timeout on every call.
	preferred atomic.Int32
}

// NewClient checks cfg and returns a Client for the brokers it names.
func NewClient(cfg Config) (Client, error) {
	bases, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	rt := cfg.Transport
	if rt == nil {
		if cfg.hasTLSMaterial() {
			tc, err := cfg.tlsConfig()
			if err != nil {
				return nil, err
			}
			rt = newTransport(tc)
		} else {
			rt = sharedTransport
		}
	}
	c := &httpClient{
		bases:    bases,
		http:     &http.Client{Transport: rt},
		timeout:  cfg.Timeout,
		maxBody:  cfg.MaxBodyBytes,
		username: cfg.Username,
		password: cfg.Password,
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	if c.maxBody == 0 {
		c.maxBody = DefaultMaxBodyBytes
	}
	return c, nil
}

// call describes one admin API operation.
type call struct {
	op     string
	method string
	path   string
	// on400 and on404 are the sentinels those statuses mean for this operation
	// (nil: the status is not documented for it, so it is a bad response).
	on400, on404 error
	// decode reads a successful body; nil means the body is ignored.
	decode func(body io.Reader) error
}

func (c *httpClient) Brokers(ctx context.Context) ([]Broker, error) {
	var brokers []Broker
	err := c.do(ctx, call{
		op: "list brokers", method: http.MethodGet, path: "/v1/brokers",
		decode: func(body io.Reader) (err error) {
			brokers, err = decodeBrokers(body, c.maxBody)
			return err
		},
	})
	return brokers, err
}

func (c *httpClient) Decommission(ctx context.Context, nodeID int) error {
	if err := checkNodeID("decommission", nodeID); err != nil {
		return err
	}
	return c.do(ctx, call{
		op:     fmt.Sprintf("decommission broker %d", nodeID),
		method: http.MethodPut, path: brokerPath(nodeID, "decommission"),
		on400: ErrAlreadyDecommissioned, on404: ErrBrokerNotFound,
	})
}

func (c *httpClient) Recommission(ctx context.Context, nodeID int) error {
	if err := checkNodeID("recommission", nodeID); err != nil {
		return err
	}
	return c.do(ctx, call{
		op:     fmt.Sprintf("recommission broker %d", nodeID),
		method: http.MethodPut, path: brokerPath(nodeID, "recommission"),
		on400: ErrNotDecommissioning, on404: ErrBrokerNotFound,
	})
}

func (c *httpClient) DecommissionStatus(ctx context.Context, nodeID int) (DecommissionStatus, error) {
	if err := checkNodeID("decommission status of", nodeID); err != nil {
		return DecommissionStatus{}, err
	}
	var st DecommissionStatus
	err := c.do(ctx, call{
		op:     fmt.Sprintf("decommission status of broker %d", nodeID),
		method: http.MethodGet, path: brokerPath(nodeID, "decommission"),
		on400: ErrNotDecommissioning, on404: ErrBrokerNotFound,
		decode: func(body io.Reader) (err error) {
			st, err = decodeDecommissionStatus(body, c.maxBody)
			return err
		},
	})
	return st, err
}

func brokerPath(nodeID int, action string) string {
	return "/v1/brokers/" + strconv.Itoa(nodeID) + "/" + action
}

func checkNodeID(op string, nodeID int) error {
	if nodeID < 0 {
		return &Error{Op: fmt.Sprintf("%s broker %d", op, nodeID), Err: errors.New("node ID must not be negative")}
	}
	return nil
}

// do sends the call to one broker after another until one gives an answer that settles it.
// GETs move on after any ErrUnavailable. PUTs move on only when the broker certainly did not act
// (the connection could not be opened, or it answered 503), so a decommission is never sent twice
// because an answer was lost.
func (c *httpClient) do(ctx context.Context, cl call) error {
	n := len(c.bases)
	start := int(c.preferred.Load())
	var failed attemptErrors
	for i := range n {
		if err := ctx.Err(); err != nil {
			return c.abandoned(cl, failed, err)
		}
		idx := (start + i) % n
		err := c.attempt(ctx, c.bases[idx], cl)
		if err == nil {
			c.preferred.Store(int32(idx))
			return nil
		}
		if ctx.Err() != nil {
			// The caller gave up: that says nothing about the brokers.
			return c.abandoned(cl, append(failed, err), ctx.Err())
		}
		if !errors.Is(err, ErrUnavailable) || (cl.method != http.MethodGet && !err.notProcessed()) {
			return err
		}
		failed = append(failed, err)
	}
	if n == 1 {
		return failed[0]
	}
	return &Error{Op: cl.op, Kind: ErrUnavailable, Err: fmt.Errorf("all %d brokers failed: %w", n, failed)}
}

// abandoned is the error for a call whose context ended; it matches no sentinel.
func (c *httpClient) abandoned(cl call, failed attemptErrors, ctxErr error) error {
	if len(failed) == 0 {
		return &Error{Op: cl.op, Err: ctxErr}
	}
	// The attempts are described, not wrapped: a call the caller abandoned must not match
	// ErrUnavailable.
	return &Error{Op: cl.op, Err: fmt.Errorf("%w after %s", ctxErr, failed.Error())}
}

// notProcessed reports whether the broker certainly did not act on the request.
func (e *Error) notProcessed() bool {
	if e.StatusCode == http.StatusServiceUnavailable {
		return true
	}
	var op *net.OpError
	return e.StatusCode == 0 && errors.As(e.Err, &op) && op.Op == "dial"
}

// attempt sends the call to one broker under the per-request timeout.
func (c *httpClient) attempt(ctx context.Context, base *url.URL, cl call) *Error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	target := base.JoinPath(cl.path).String()
	fail := func(kind error, status int, msg string, cause error) *Error {
		return &Error{Op: cl.op, URL: target, StatusCode: status, Message: msg, Kind: kind, Err: cause}
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, nil)
	if err != nil {
		return fail(ErrBadResponse, 0, "", err)
	}
	req.Header.Set("Accept", "application/json")
	if c.username != "" {
		req.SetBasicAuth(c.username, c.password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fail(ErrUnavailable, 0, "", err)
	}
	defer resp.Body.Close()

	status := resp.StatusCode
	if status >= 200 && status < 300 {
		if cl.decode == nil {
			// Drain a little so the connection can be reused; the content does not matter.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBodyBytes))
			return nil
		}
		if err := cl.decode(resp.Body); err != nil {
			if ctx.Err() != nil {
				return fail(ErrUnavailable, status, "", fmt.Errorf("%w (%w)", ctx.Err(), err))
			}
			return fail(ErrBadResponse, status, "", err)
		}
		return nil
	}

	body, _ := readCapped(resp.Body, maxErrorBodyBytes)
	msg := errorMessage(body)
	switch {
	case status == http.StatusBadRequest && cl.on400 != nil:
		return fail(cl.on400, status, msg, nil)
	case status == http.StatusNotFound && cl.on404 != nil:
		return fail(cl.on404, status, msg, nil)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fail(ErrUnauthorized, status, msg, nil)
	case status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout:
		return fail(ErrUnavailable, status, msg, nil)
	default:
		return fail(ErrBadResponse, status, msg, fmt.Errorf("unexpected HTTP status %d", status))
	}
}
