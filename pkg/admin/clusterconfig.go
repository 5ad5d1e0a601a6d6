package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// The cluster configuration calls follow Redpanda's own client, rpadmin
// (redpanda-data/common-go rpadmin/api_config.go), and the admin server's handlers
// (redpanda-data/redpanda src/v/redpanda/admin/server.cc: get_cluster_config,
// register_cluster_config_routes, patch_cluster_config_handler; api-doc/cluster_config.json).
//
// All three may go to any broker and be sent again after an answer was lost: the GETs read, and
// upserting the values a broker has already changes nothing and returns the current version
// (patch_cluster_config_handler, "upserts resulted in no-ops"), while a remove resets to the
// default again. Redpanda forwards the write to the controller leader itself
// (src/v/cluster/config_frontend.cc), so these routes do not redirect; a redirect is
// ErrUnavailable.

// NewClusterConfigClient checks cfg and returns a ClusterConfigClient for the brokers it names.
func NewClusterConfigClient(cfg Config) (ClusterConfigClient, error) {
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return c.(*httpClient), nil
}

// configCall is one cluster configuration request.
type configCall struct {
	op, method, path string
	query            url.Values
	body             []byte
	decode           func(data []byte) error
}

func (c *httpClient) ClusterConfig(ctx context.Context, includeDefaults bool) (map[string]json.RawMessage, error) {
	var cfg map[string]json.RawMessage
	err := c.doConfig(ctx, configCall{
		op: "read cluster config", method: http.MethodGet, path: "/v1/cluster_config",
		query: url.Values{"include_defaults": {strconv.FormatBool(includeDefaults)}},
		decode: func(data []byte) error {
			if err := expectJSON(data, '{'); err != nil {
				return err
			}
			return json.Unmarshal(data, &cfg)
		},
	})
	return cfg, err
}

func (c *httpClient) ClusterConfigStatus(ctx context.Context) ([]ConfigStatus, error) {
	var st []ConfigStatus
	err := c.doConfig(ctx, configCall{
		op: "read cluster config status", method: http.MethodGet, path: "/v1/cluster_config/status",
		decode: func(data []byte) error {
			if err := expectJSON(data, '['); err != nil {
				return err
			}
			return json.Unmarshal(data, &st)
		},
	})
	return st, err
}

func (c *httpClient) PatchClusterConfig(ctx context.Context, patch ConfigPatch) (ConfigWriteResult, error) {
	const op = "write cluster config"
	body, err := patchBody(patch)
	if err != nil {
		return ConfigWriteResult{}, &Error{Op: op, Err: err}
	}
	query := url.Values{}
	if patch.DryRun {
		query.Set("dry_run", "true")
	}
	if patch.Force {
		query.Set("force", "true")
	}
	var res ConfigWriteResult
	err = c.doConfig(ctx, configCall{
		op: op, method: http.MethodPut, path: "/v1/cluster_config", query: query, body: body,
		decode: func(data []byte) error {
			if err := expectJSON(data, '{'); err != nil {
				return err
			}
			return json.Unmarshal(data, &res)
		},
	})
	return res, err
}

// patchBody is the JSON body: both keys always present, as the handler's schema requires.
func patchBody(p ConfigPatch) ([]byte, error) {
	upsert := p.Upsert
	if upsert == nil {
		upsert = map[string]json.RawMessage{}
	}
	remove := p.Remove
	if remove == nil {
		remove = []string{}
	}
	for name, v := range upsert {
		if !json.Valid(v) {
			return nil, fmt.Errorf("value of %s is not valid JSON", name)
		}
	}
	return json.Marshal(struct {
		Upsert map[string]json.RawMessage `json:"upsert"`
		Remove []string                   `json:"remove"`
	}{upsert, remove})
}

// doConfig sends the call to one broker after another, starting with the one that answered
// last, until one settles it; it moves on after ErrUnavailable only.
func (c *httpClient) doConfig(ctx context.Context, cl configCall) error {
	n := len(c.bases)
	start := int(c.preferred.Load())
	var failed attemptErrors
	for i := range n {
		if err := ctx.Err(); err != nil {
			return c.abandoned(call{op: cl.op}, failed, err)
		}
		idx := (start + i) % n
		err := c.sendConfig(ctx, c.bases[idx], cl)
		if err == nil {
			c.preferred.Store(int32(idx))
			return nil
		}
		var e *Error
		if !errors.As(err, &e) {
			return err
		}
		if ctx.Err() != nil {
			return c.abandoned(call{op: cl.op}, append(failed, e), ctx.Err())
		}
		if !errors.Is(err, ErrUnavailable) {
			return err
		}
		failed = append(failed, e)
	}
	if n == 1 {
		return failed[0]
	}
	return &Error{Op: cl.op, Kind: ErrUnavailable, Err: fmt.Errorf("all %d brokers failed: %w", n, failed)}
}

// sendConfig makes one request to one broker under the per-request timeout.
func (c *httpClient) sendConfig(ctx context.Context, base *url.URL, cl configCall) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	u := base.JoinPath(cl.path)
	u.RawQuery = cl.query.Encode()
	target := u.String()
	fail := func(kind error, status int, msg string, cause error) *Error {
		return &Error{Op: cl.op, URL: target, StatusCode: status, Message: msg, Kind: kind, Err: cause}
	}
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, body)
	if err != nil {
		return fail(ErrBadResponse, 0, "", err)
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
		return fail(transportKind(err), 0, "", c.redactError(err))
	}
	defer resp.Body.Close()
	status := resp.StatusCode
	if status == http.StatusOK {
		data, err := readCapped(resp.Body, c.maxBody)
		if err == nil {
			err = cl.decode(data)
		}
		if err != nil {
			if ctx.Err() != nil {
				return fail(ErrUnavailable, status, "", fmt.Errorf("%w (%w)", ctx.Err(), err))
			}
			return fail(ErrBadResponse, status, "", err)
		}
		return nil
	}
	data, _ := readCapped(resp.Body, maxErrorBodyBytes)
	return configFailure(fail, status, data)
}

// configFailure classifies a failed answer. The write's 400 for invalid properties is a JSON
// object of property name to reason (rpk's formatValidationError, src/go/rpk/pkg/cli/cluster/
// config/import.go, decodes it so); other failures carry seastar's {"message", "code"}.
func configFailure(fail func(error, int, string, error) *Error, status int, data []byte) error {
	if status == http.StatusBadRequest {
		var props map[string]string
		if json.Unmarshal(data, &props) == nil && len(props) > 0 {
			return &ConfigValidationError{Err: fail(ErrBadRequest, status, snippet(data, maxMessageLen), nil), Properties: props}
		}
	}
	msg := errorMessage(data)
	kind, _ := classify(call{nodeID: -1}, status, msg)
	if status >= 300 && status < 400 {
		kind = ErrUnavailable
	}
	e := fail(kind, status, msg, nil)
	if kind == ErrBadResponse {
		e.Err = fmt.Errorf("unexpected HTTP status %d", status)
	}
	return e
}
