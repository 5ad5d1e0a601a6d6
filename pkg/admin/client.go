package admin

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
	// advertised holds the host names the cluster's members advertise, from GET /v1/brokers.
	advertised advertisedHosts
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
		http:     &http.Client{Transport: rt, CheckRedirect: noRedirects},
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

// noRedirects makes net/http hand every redirect back: the client follows them itself, with
// credentials, and only to this cluster's brokers.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// call describes one admin API operation.
type call struct {
	op     string
	method string
	path   string
	// nodeID is the node ID the path names, -1 if none: a 404 is ErrBrokerNotFound only when its
	// message names this broker.
	nodeID int
	// onTransition is the Kind of a 400 "invalid state transition" (nil: ErrInvalidStateTransition).
	onTransition error
	// notDecommissioning: a 400 "Node N is not decommissioning" means ErrNotDecommissioning.
	notDecommissioning bool
	// only, when set, is the one broker to ask: the call never moves to another.
	only *url.URL
	// query is the request's query string, "" for none.
	query string
	// body is the request's JSON body, nil for none.
	body []byte
	// decode reads a successful body; nil means the body is ignored.
	decode func(body io.Reader) error
}

func (c *httpClient) Brokers(ctx context.Context) ([]Broker, error) {
	var brokers []Broker
	err := c.do(ctx, c.listBrokers(&brokers))
	return brokers, err
}

func (c *httpClient) BrokersFrom(ctx context.Context, ordinal int) ([]Broker, error) {
	return askBroker(ctx, c, ordinal, brokerQuestion[[]Broker]{what: "brokers list", path: "/v1/brokers", decode: func(body io.Reader, max int64) ([]Broker, error) {
		brokers, err := decodeBrokers(body, max)
		if err == nil {
			c.advertised.remember(brokers)
		}
		return brokers, err
	}})
}

// listBrokers is GET /v1/brokers, decoded into *into; the names the brokers advertise are
// remembered for following redirects.
func (c *httpClient) listBrokers(into *[]Broker) call {
	return call{
		op: "list brokers", method: http.MethodGet, path: "/v1/brokers", nodeID: -1,
		decode: func(body io.Reader) (err error) {
			*into, err = decodeBrokers(body, c.maxBody)
			if err == nil {
				c.advertised.remember(*into)
			}
			return err
		},
	}
}

func (c *httpClient) Broker(ctx context.Context, nodeID int) (Broker, error) {
	if err := checkNodeID("describe", nodeID); err != nil {
		return Broker{}, err
	}
	var b Broker
	err := c.do(ctx, call{
		op:     fmt.Sprintf("describe broker %d", nodeID),
		method: http.MethodGet, path: "/v1/brokers/" + strconv.Itoa(nodeID), nodeID: nodeID,
		decode: func(body io.Reader) (err error) {
			b, err = decodeBroker(body, c.maxBody, nodeID)
			return err
		},
	})
	return b, err
}

func (c *httpClient) HealthOverview(ctx context.Context) (HealthOverview, error) {
	var h HealthOverview
	err := c.do(ctx, call{
		op: "cluster health overview", method: http.MethodGet, path: "/v1/cluster/health_overview", nodeID: -1,
		decode: func(body io.Reader) (err error) {
			h, err = decodeHealthOverview(body, c.maxBody)
			return err
		},
	})
	return h, err
}

func (c *httpClient) ClusterPartitions(ctx context.Context) ([]Partition, error) {
	var parts []Partition
	err := c.do(ctx, call{
		op: "list the cluster's partitions", method: http.MethodGet, path: "/v1/cluster/partitions", query: "with_internal=true", nodeID: -1,
		decode: func(body io.Reader) (err error) {
			parts, err = decodeClusterPartitions(body, c.maxBody)
			return err
		},
	})
	return parts, err
}

func (c *httpClient) Decommission(ctx context.Context, nodeID int) error {
	if err := checkNodeID("decommission", nodeID); err != nil {
		return err
	}
	return c.do(ctx, call{
		op:     fmt.Sprintf("decommission broker %d", nodeID),
		method: http.MethodPut, path: brokerPath(nodeID, "decommission"), nodeID: nodeID,
		onTransition: ErrAlreadyDecommissioned,
	})
}

func (c *httpClient) Recommission(ctx context.Context, nodeID int) error {
	if err := checkNodeID("recommission", nodeID); err != nil {
		return err
	}
	return c.do(ctx, call{
		op:     fmt.Sprintf("recommission broker %d", nodeID),
		method: http.MethodPut, path: brokerPath(nodeID, "recommission"), nodeID: nodeID,
		onTransition: ErrNotDecommissioning,
	})
}

func (c *httpClient) DecommissionStatus(ctx context.Context, nodeID int) (DecommissionStatus, error) {
	if err := checkNodeID("decommission status of", nodeID); err != nil {
		return DecommissionStatus{}, err
	}
	var st DecommissionStatus
	err := c.do(ctx, call{
		op:     fmt.Sprintf("decommission status of broker %d", nodeID),
		method: http.MethodGet, path: brokerPath(nodeID, "decommission"), nodeID: nodeID,
		notDecommissioning: true,
		decode: func(body io.Reader) (err error) {
			st, err = decodeDecommissionStatus(body, c.maxBody)
			return err
		},
	})
	return st, err
}

func (c *httpClient) EnableMaintenance(ctx context.Context, nodeID int) error {
	if err := checkNodeID("enable maintenance of", nodeID); err != nil {
		return err
	}
	return c.do(ctx, call{
		op:     fmt.Sprintf("enable maintenance of broker %d", nodeID),
		method: http.MethodPut, path: brokerPath(nodeID, "maintenance"), nodeID: nodeID,
	})
}

func (c *httpClient) DisableMaintenance(ctx context.Context, nodeID int) error {
	if err := checkNodeID("disable maintenance of", nodeID); err != nil {
		return err
	}
	return c.do(ctx, call{
		op:     fmt.Sprintf("disable maintenance of broker %d", nodeID),
		method: http.MethodDelete, path: brokerPath(nodeID, "maintenance"), nodeID: nodeID,
	})
}

func (c *httpClient) NodeConfig(ctx context.Context, ordinal int) (NodeConfig, error) {
	return askBroker(ctx, c, ordinal, brokerQuestion[NodeConfig]{what: "node config", path: "/v1/node_config", decode: decodeNodeConfig})
}

func (c *httpClient) PostRestartProbe(ctx context.Context, ordinal int) (int, error) {
	return askBroker(ctx, c, ordinal, brokerQuestion[int]{what: "post-restart probe", path: "/v1/broker/post_restart_probe", decode: decodePostRestartProbe})
}

func (c *httpClient) PreRestartProbe(ctx context.Context, ordinal int) (RestartRisks, error) {
	return askBroker(ctx, c, ordinal, brokerQuestion[RestartRisks]{what: "pre-restart probe", path: "/v1/broker/pre_restart_probe", decode: decodePreRestartProbe})
}

func (c *httpClient) Features(ctx context.Context, ordinal int) (Features, error) {
	return askBroker(ctx, c, ordinal, brokerQuestion[Features]{what: "features", path: "/v1/features", decode: decodeFeatures})
}

// brokerQuestion is a GET that one broker answers about itself.
type brokerQuestion[T any] struct {
	what, path string
	decode     func(io.Reader, int64) (T, error)
}

// askBroker asks the broker at bases[ordinal], and only that one: the answer is about the
// broker that gives it, so no other broker may stand in for it.
func askBroker[T any](ctx context.Context, c *httpClient, ordinal int, q brokerQuestion[T]) (T, error) {
	var answer T
	op := fmt.Sprintf("%s of broker URL %d", q.what, ordinal)
	if ordinal < 0 || ordinal >= len(c.bases) {
		return answer, &Error{Op: op, Err: fmt.Errorf("no broker URL %d: the client has %d", ordinal, len(c.bases))}
	}
	err := c.do(ctx, call{
		op: op, method: http.MethodGet, path: q.path, nodeID: -1, only: c.bases[ordinal],
		decode: func(body io.Reader) (err error) {
			answer, err = q.decode(body, c.maxBody)
			return err
		},
	})
	return answer, err
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
	if cl.only != nil {
		if err := c.attempt(ctx, cl.only, cl); err != nil {
			if ctx.Err() != nil {
				return c.abandoned(cl, attemptErrors{err}, ctx.Err())
			}
			return err
		}
		return nil
	}
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
	// A redirect means the broker did not act: it passes the call to the controller leader.
	if e.StatusCode == http.StatusServiceUnavailable || e.StatusCode == http.StatusTemporaryRedirect || e.StatusCode == http.StatusPermanentRedirect {
		return true
	}
	var op *net.OpError
	return e.StatusCode == 0 && errors.As(e.Err, &op) && op.Op == "dial"
}

// maxRedirects bounds how many redirects one attempt follows. Redpanda sends a 307 to the
// controller leader when leadership moved under a call, and asks the client to back off (a
// Retry-After) from the second redirect on (server.cc, redirect_to_leader): the client does not
// wait, so it stops there and the caller's workqueue retries later.
const maxRedirects = 1

// attempt sends the call to one broker under the per-request timeout, following a redirect to
// another broker of this cluster.
func (c *httpClient) attempt(ctx context.Context, base *url.URL, cl call) *Error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	u := base.JoinPath(cl.path)
	u.RawQuery = cl.query
	target := u.String()
	for hops := 0; ; hops++ {
		e, next := c.send(ctx, target, cl, hops < maxRedirects)
		if next == "" {
			return e
		}
		target = next
	}
}

// send makes one request. When the broker redirects and follow is true, it returns the URL to
// send the same request to; otherwise the outcome.
func (c *httpClient) send(ctx context.Context, target string, cl call, follow bool) (*Error, string) {
	fail := func(kind error, status int, msg string, cause error) *Error {
		return &Error{Op: cl.op, URL: target, StatusCode: status, Message: msg, Kind: kind, Err: cause}
	}
	var reqBody io.Reader
	if cl.body != nil {
		reqBody = bytes.NewReader(cl.body) // a new reader each request: a redirect sends it again
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, reqBody)
	if err != nil {
		return fail(ErrBadResponse, 0, "", err), ""
	}
	req.Header.Set("Accept", "application/json")
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.username != "" {
		req.SetBasicAuth(c.username, c.password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fail(transportKind(err), 0, "", c.redactError(err)), ""
	}
	defer resp.Body.Close()

	status := resp.StatusCode
	if status >= 200 && status < 300 {
		if cl.decode == nil {
			// Drain a little so the connection can be reused; the content does not matter.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBodyBytes))
			return nil, ""
		}
		if err := cl.decode(resp.Body); err != nil {
			if ctx.Err() != nil {
				return fail(ErrUnavailable, status, "", fmt.Errorf("%w (%w)", ctx.Err(), err)), ""
			}
			return fail(ErrBadResponse, status, "", err), ""
		}
		return nil, ""
	}
	if status == http.StatusTemporaryRedirect || status == http.StatusPermanentRedirect {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBodyBytes))
		loc, err := resp.Location()
		switch {
		case err != nil:
			return fail(ErrBadResponse, status, "", fmt.Errorf("redirect without a usable Location: %w", err)), ""
		case cl.only != nil:
			return fail(ErrUnavailable, status, "", fmt.Errorf("redirected to %s; this call asks only %s", loc.Redacted(), cl.only.Host)), ""
		case !follow:
			return fail(ErrUnavailable, status, "", fmt.Errorf("redirected again, to %s: controller leadership is moving", c.redact(loc.Redacted()))), ""
		}
		if why := c.mayFollow(ctx, target, loc); why != "" {
			return fail(ErrUnavailable, status, "", fmt.Errorf("redirected to %s, %s; not following", c.redact(loc.Redacted()), why)), ""
		}
		return nil, loc.String()
	}

	body, _ := readCapped(resp.Body, maxErrorBodyBytes)
	msg := c.redact(errorMessage(body))
	kind, transition := classify(cl, status, msg)
	e := fail(kind, status, msg, nil)
	e.transition = transition
	if kind == ErrBadResponse {
		e.Err = fmt.Errorf("unexpected HTTP status %d", status)
	}
	return e, ""
}

// classify maps a failed answer to its sentinel, reading the message where Redpanda sends the
// same status for different reasons (src/v/redpanda/admin/server.cc: throw_on_error,
// get_broker_handler, get_decommission_progress_handler; seastar's "Not found" for an unknown
// route).
func classify(cl call, status int, msg string) (kind error, transition bool) {
	switch {
	case status == http.StatusBadRequest && strings.Contains(msg, "invalid state transition"):
		if cl.onTransition != nil {
			return cl.onTransition, true
		}
		return ErrInvalidStateTransition, true
	case status == http.StatusBadRequest && cl.notDecommissioning && strings.HasSuffix(msg, "is not decommissioning"):
		return ErrNotDecommissioning, false
	case status == http.StatusBadRequest:
		return ErrBadRequest, false
	case status == http.StatusNotFound && namesBroker(msg, cl.nodeID):
		return ErrBrokerNotFound, false
	case status == http.StatusNotFound:
		return ErrNotFound, false
	case status == http.StatusUnauthorized:
		return ErrUnauthorized, false
	case status == http.StatusForbidden:
		return ErrForbidden, false
	case status == http.StatusInternalServerError && msg == userExistsMessage:
		return ErrUserExists, false
	case status == http.StatusInternalServerError && msg == userMissingMessage:
		return ErrUserNotFound, false
	case status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout:
		return ErrUnavailable, false
	default:
		return ErrBadResponse, false
	}
}

// namesBroker reports whether a 404 message is one of Redpanda's "no such broker" messages about
// nodeID: "broker with id N not found" (throw_on_error), "broker with id: N not found"
// (get_broker_handler), "Node N does not exists" (get_decommission_progress_handler).
func namesBroker(msg string, nodeID int) bool {
	if nodeID < 0 {
		return false
	}
	id := strconv.Itoa(nodeID)
	for _, m := range []string{
		"broker with id " + id + " not found",
		"broker with id: " + id + " not found",
		"Node " + id + " does not exist",
	} {
		if strings.HasPrefix(msg, m) {
			return true
		}
	}
	return false
}
