package admintest

import (
	"encoding/base64"
	"net/http"
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
// With it required (a superuser set in the cluster's Security): unknown user or wrong password is 401 "Unauthorized";
// no credentials on a user route is 401 "Forbidden (authentication is required)"; no credentials,
// or a user who is not a superuser, on a superuser route is 403 "Forbidden (superuser role
// required)". It returns the user name ("" for anonymous) and the refusal, if any.
func (c *Cluster) authenticate(hr *http.Request, level authLevel) (string, *reply) {
	required := c.sec.Username != ""
	header := hr.Header.Get("Authorization")
	var name string
	authenticated, super := !required, !required
	switch {
	case strings.HasPrefix(header, "Basic "):
		decoded, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(header, "Basic "))
		u, p, ok := strings.Cut(string(decoded), ":")
		if err != nil || len(decoded) == 0 || !ok || p == "" {
			return "", errorReplyPtr(http.StatusBadRequest, "Malformed Authorization header")
		}
		name = u
		if required {
			want, known := c.password(u)
			if !known || want != p {
				return name, errorReplyPtr(http.StatusUnauthorized, "Unauthorized")
			}
			authenticated, super = true, u == c.sec.Username
		}
	case header != "":
		return "", errorReplyPtr(http.StatusBadRequest, "Unsupported Authorization method")
	}
	switch {
	case level == superuser && !super:
		return name, errorReplyPtr(http.StatusForbidden, "Forbidden (superuser role required)")
	case level == user && !authenticated:
		return name, errorReplyPtr(http.StatusUnauthorized, "Forbidden (authentication is required)")
	}
	return name, nil
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
