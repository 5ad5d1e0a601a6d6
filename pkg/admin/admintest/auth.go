package admintest

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
)

// authLevel is what a route needs, as server.h's auth_level says.
type authLevel int

const (
	public    authLevel = iota // publik: no authentication
	user                       // an authenticated user, when authentication is required
	superuser                  // a superuser, when authentication is required
)

// routeLevel is the level server.cc registers each simulated route with: health_overview and
// status/ready are public; node_config and every PUT or DELETE under /v1/brokers/{id} need a
// superuser; the other GETs (brokers, broker, decommission status, partitions) a user.
func routeLevel(req request, method string) authLevel {
	switch {
	case req.rest == "/v1/cluster/health_overview" || req.rest == "/v1/status/ready":
		return public
	case req.rest == "/v1/node_config" || strings.HasPrefix(req.rest, "/v1/cluster_config"):
		// server.cc: get_cluster_config, get_cluster_config_status and patch_cluster_config
		// are register_route<superuser>.
		return superuser
	case strings.HasPrefix(req.rest, usersPath):
		// security.cc register_security_routes: the users routes are register_route<superuser>.
		return superuser
	case method != http.MethodGet && strings.HasPrefix(req.rest, "/v1/brokers/"):
		return superuser
	default:
		return user
	}
}

// authenticate answers as src/v/security/request_auth.cc and server.h apply_auth do. A
// malformed Basic header or another scheme is 400 whether or not authentication is required.
// Whether it is required, and who is a superuser, are the live cluster properties
// admin_api_require_auth and superusers (admin/server.cc binds both into the authenticator, so a
// write takes effect on the next request; a cluster with Security.Username starts with them
// set, as its .bootstrap.yaml would). With it required: unknown user or wrong password is 401
// "Unauthorized"; no credentials on a user route is 401 "Forbidden (authentication is
// required)"; no credentials, or a user not in superusers, on a superuser route is 403
// "Forbidden (superuser role required)". Without it, credentials that do not match are
// treated as anonymous and every caller is a superuser (request_authenticator::authenticate
// catches the 401). It returns the name in the header ("" for none), the authenticated user
// ("" for anonymous) and the refusal, if any.
func (c *Cluster) authenticate(hr *http.Request, level authLevel) (string, string, *reply) {
	required, supers := c.authConfig()
	header := hr.Header.Get("Authorization")
	var name, authed string
	authenticated, super := !required, !required
	switch {
	case strings.HasPrefix(header, "Basic "):
		decoded, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(header, "Basic "))
		u, p, ok := strings.Cut(string(decoded), ":")
		if err != nil || len(decoded) == 0 || !ok || p == "" {
			return "", "", errorReplyPtr(http.StatusBadRequest, "Malformed Authorization header")
		}
		name = u
		want, known := c.password(u)
		match := known && want == p
		if required && !match {
			return name, "", errorReplyPtr(http.StatusUnauthorized, "Unauthorized")
		}
		if match {
			// do_authenticate: superuser = in superusers || !require_auth.
			authed, authenticated, super = u, true, !required || slices.Contains(supers, u)
		}
	case header != "":
		return "", "", errorReplyPtr(http.StatusBadRequest, "Unsupported Authorization method")
	}
	switch {
	case level == superuser && !super:
		return name, authed, errorReplyPtr(http.StatusForbidden, "Forbidden (superuser role required)")
	case level == user && !authenticated:
		return name, authed, errorReplyPtr(http.StatusUnauthorized, "Forbidden (authentication is required)")
	}
	return name, authed, nil
}

// authConfig reads admin_api_require_auth and superusers as they are now.
func (c *Cluster) authConfig() (bool, []string) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	supers, _ := c.currentValue("superusers").([]string)
	return c.currentValue("admin_api_require_auth") == true, supers
}

// password returns the password of a user of the credential store (users.go): the superuser,
// one of the other users, or one made through /v1/security/users, as request_auth.cc checks
// Basic credentials against that store.
func (c *Cluster) password(name string) (string, bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	u, ok := c.credentials()[name]
	return u.password, ok
}

func errorReplyPtr(status int, msg string) *reply {
	r := errorReply(status, "%s", msg)
	return &r
}
