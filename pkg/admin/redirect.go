package admin

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
)

// Redpanda's redirect to the controller leader (src/v/redpanda/admin/server.cc,
// admin_server::redirect_to_leader) builds its Location as
// "<scheme of the request>://<leader host><port of the request's Host header><path and query>",
// where the leader host is the leader's advertised Kafka address at the index of the listener
// whose host matched the request's Host header, or else the leader's internal RPC address
// (broker.rpc_address(), --advertise-rpc-addr). In Kubernetes that is another pod's DNS name,
// often written fully qualified with a trailing dot, which need not be the name the client was
// given. Redpanda's own Go client (redpanda-data/common-go rpadmin/admin.go) leaves redirects to
// net/http, which drops the Authorization header for another host, and for calls that must reach
// the leader it maps the leader's node ID to one of its own URLs through /v1/node_config
// (sendToLeader, mapBrokerIDsToURLs) instead.
//
// This client follows a redirect itself. It sends the request and its credentials on when the
// Location names one of Config.URLs (same scheme, host and port), or when it keeps the scheme and
// the port of the broker that redirected and its host is the internal RPC address of a member of
// this cluster, as GET /v1/brokers reports them. Host names compare without case and without a
// trailing dot. A loopback or unspecified address (Redpanda's default internal RPC address is
// 127.0.0.1) names the client's own host, so it is never taken as a member's name. A Location
// with user info is never followed.

// mayFollow reports why the client must not follow a redirect from the URL from to loc; "" means
// it may. A host not yet known as an advertised member name is looked up with one GET /v1/brokers
// of the broker that redirected, which is one of Config.URLs.
func (c *httpClient) mayFollow(ctx context.Context, from string, loc *url.URL) string {
	if loc.User != nil {
		return "which carries user info"
	}
	if c.inCluster(loc) {
		return ""
	}
	src, err := url.Parse(from)
	if err != nil {
		return "which cannot be checked"
	}
	if !strings.EqualFold(loc.Scheme, src.Scheme) || portOf(loc) != portOf(src) {
		return "which is not one of this cluster's broker URLs and changes the scheme or port"
	}
	host := canonicalHost(loc.Hostname())
	if c.advertised.has(host) {
		return ""
	}
	var brokers []Broker
	list := c.listBrokers(&brokers)
	if e, _ := c.send(ctx, src.ResolveReference(&url.URL{Path: c.basePath(src) + list.path}).String(), list, false); e != nil {
		return "which is not one of this cluster's broker URLs, and the broker list to check it against could not be read (" + e.detail() + ")"
	}
	if c.advertised.has(host) {
		return ""
	}
	return "which is not one of this cluster's broker URLs nor an address a broker of the cluster advertises"
}

// basePath is the path prefix of the configured URL that u was built from ("" for none).
func (c *httpClient) basePath(u *url.URL) string {
	for _, b := range c.bases {
		if strings.EqualFold(u.Scheme, b.Scheme) && sameHostPort(u, b) && strings.HasPrefix(u.Path, b.Path) {
			return strings.TrimSuffix(b.Path, "/")
		}
	}
	return ""
}

// inCluster reports whether u points at one of the brokers the client was configured with
// (same scheme, host and port).
func (c *httpClient) inCluster(u *url.URL) bool {
	for _, b := range c.bases {
		if strings.EqualFold(u.Scheme, b.Scheme) && sameHostPort(u, b) {
			return true
		}
	}
	return false
}

func sameHostPort(a, b *url.URL) bool {
	return canonicalHost(a.Hostname()) == canonicalHost(b.Hostname()) && portOf(a) == portOf(b)
}

// canonicalHost is a host name as DNS compares it: without case and without the trailing dot of
// a fully qualified name.
func canonicalHost(h string) string {
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// portOf is u's port, or the scheme's default.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	return map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
}

// advertisedHosts is the set of internal RPC addresses the cluster's members advertise, as the
// last GET /v1/brokers reported them.
type advertisedHosts struct {
	mu    sync.Mutex
	hosts map[string]bool
}

func (a *advertisedHosts) remember(brokers []Broker) {
	hosts := make(map[string]bool, len(brokers))
	for _, b := range brokers {
		// Redpanda's default, 127.0.0.1, names the operator's own host, not the broker's.
		if h := canonicalHost(b.InternalRPCAddress); h != "" && !isLocal(h) {
			hosts[h] = true
		}
	}
	a.mu.Lock()
	a.hosts = hosts
	a.mu.Unlock()
}

func (a *advertisedHosts) has(host string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return host != "" && a.hosts[host]
}

// redact replaces the client's credentials in text that came from a broker (an error message, a
// Location), so that an error never repeats them even if something on the way echoes them back.
func (c *httpClient) redact(text string) string {
	if c.username == "" {
		return text
	}
	token := base64.StdEncoding.EncodeToString([]byte(c.username + ":" + c.password))
	text = strings.ReplaceAll(text, token, "<redacted>")
	if c.password != "" {
		text = strings.ReplaceAll(text, c.password, "<redacted>")
	}
	return text
}

// isLocal reports whether h names the host the client runs on, or no host.
func isLocal(h string) bool {
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback() || ip.IsUnspecified()
	}
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// redactError returns err, or, when its text holds a credential, an error with the redacted text
// in its place (the chain is dropped with it: a caller could print it).
func (c *httpClient) redactError(err error) error {
	if text := err.Error(); c.redact(text) != text {
		return errors.New(c.redact(text))
	}
	return err
}
