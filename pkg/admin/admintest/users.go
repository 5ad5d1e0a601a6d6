package admintest

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// The SCRAM users, as src/v/redpanda/admin/security.cc of redpanda-data/redpanda serves them
// (register_security_routes, create_user_handler, update_user_handler, delete_user_handler;
// routes as api-doc/security.json declares them). Users live in the cluster's credential store,
// which also holds the superuser and Security.Users, so a user made here can authenticate.

// scramUser is one credential_store entry: the password and its SCRAM mechanism.
type scramUser struct {
	password, mechanism string
}

// UserCredential is what the simulated credential store holds for one user.
type UserCredential struct {
	Password, Mechanism string
}

// SCRAM mechanisms: security::scram_sha256_authenticator::name and scram_sha512's.
const (
	scramSHA256 = "SCRAM-SHA-256"
	scramSHA512 = "SCRAM-SHA-512"
)

const usersPath = "/v1/security/users"

// credentials returns the credential store, made on first use from Security: the superuser
// and the further users, as SCRAM-SHA-256. Callers hold s.mu.
func (c *Cluster) credentials() map[string]scramUser {
	if c.creds == nil {
		c.creds = map[string]scramUser{}
		if c.sec.Username != "" {
			c.creds[c.sec.Username] = scramUser{c.sec.Password, scramSHA256}
		}
		for name, p := range c.sec.Users {
			c.creds[name] = scramUser{p, scramSHA256}
		}
	}
	return c.creds
}

// User returns what the credential store holds for name.
func (c *Cluster) User(name string) (UserCredential, bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	u, ok := c.credentials()[name]
	return UserCredential{Password: u.password, Mechanism: u.mechanism}, ok
}

// leaderOnly reports whether a request runs on the controller leader alone: the users writes
// redirect there first (need_redirect_to_leader(model::controller_ntp)).
func leaderOnly(req request, method string) bool {
	return method != http.MethodGet && (req.rest == usersPath || strings.HasPrefix(req.rest, usersPath+"/"))
}

// handleUsers answers the users routes. Callers hold s.mu.
func (c *Cluster) handleUsers(req request, method string) reply {
	if leaderOnly(req, method) && c.controllerID() < 0 {
		// redirect_to_leader without a leader (server.cc).
		return errorReply(http.StatusServiceUnavailable, "Partition {redpanda/controller/0} does not have a leader, cannot redirect")
	}
	// req.rest is the decoded path, so {user} arrives decoded, as get_path_param gives it.
	name, named := strings.CutPrefix(req.rest, usersPath+"/")
	switch {
	case req.rest == usersPath && method == http.MethodGet:
		// list_users_handler answers a JSON array of the store's names: [] when it holds none,
		// never null.
		return reply{status: http.StatusOK, body: append([]string{}, slices.Sorted(maps.Keys(c.credentials()))...)}
	case req.rest == usersPath && method == http.MethodPost:
		return c.createUser(req.body)
	case named && method == http.MethodPut:
		return c.updateUser(name, req.body)
	case named && method == http.MethodDelete:
		// delete_user_handler: a user already gone is success.
		delete(c.credentials(), name)
		return reply{status: http.StatusOK}
	}
	return errorReply(http.StatusNotFound, "Not found")
}

// createUser is create_user_handler: the credential parsed first, then the user name; a user
// that exists with this password and mechanism is success (match_scram_credential), one with
// another is throw_on_error's default for cluster::errc::user_exists.
func (c *Cluster) createUser(body []byte) reply {
	doc, cred, bad := parseCredential(body)
	if bad != nil {
		return *bad
	}
	name, ok := doc["username"].(string)
	if !ok {
		return errorReply(http.StatusBadRequest, "String username missing")
	}
	if !validSCRAMName(name) {
		return errorReply(http.StatusBadRequest, "Invalid SCRAM username {%s}", name)
	}
	if have, exists := c.credentials()[name]; exists {
		if have == cred {
			return reply{status: http.StatusOK}
		}
		return errorReply(http.StatusInternalServerError, "Unexpected cluster error: User already exists")
	}
	c.credentials()[name] = cred
	return reply{status: http.StatusOK}
}

// updateUser is update_user_handler: the user name is not validated, an absent user is
// throw_on_error's default for cluster::errc::user_does_not_exist.
func (c *Cluster) updateUser(name string, body []byte) reply {
	if name == "" {
		return errorReply(http.StatusBadRequest, "Invalid parameter 'user' got {}")
	}
	_, cred, bad := parseCredential(body)
	if bad != nil {
		return *bad
	}
	if _, exists := c.credentials()[name]; !exists {
		return errorReply(http.StatusInternalServerError, "Unexpected cluster error: User does not exist")
	}
	c.credentials()[name] = cred
	return reply{status: http.StatusOK}
}

// parseCredential is parse_json_body then parse_scram_credential, with their messages (the
// typo "smissing" is Redpanda's).
func parseCredential(body []byte) (map[string]any, scramUser, *reply) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, scramUser{}, errorReplyPtr(http.StatusBadRequest, "JSON parse error: "+err.Error())
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, scramUser{}, errorReplyPtr(http.StatusBadRequest, "Not an object")
	}
	algorithm, ok := doc["algorithm"].(string)
	if !ok {
		return nil, scramUser{}, errorReplyPtr(http.StatusBadRequest, "String algo missing")
	}
	password, ok := doc["password"].(string)
	if !ok {
		return nil, scramUser{}, errorReplyPtr(http.StatusBadRequest, "String password smissing")
	}
	if algorithm != scramSHA256 && algorithm != scramSHA512 {
		return nil, scramUser{}, errorReplyPtr(http.StatusBadRequest, "Unknown scram algorithm: "+algorithm)
	}
	return doc, scramUser{password, algorithm}, nil
}

// validSCRAMName is security::validate_scram_username: a saslname, every character a
// value-safe one (not NUL, ',' or '=') or the escapes =2C and =3D (scram_algorithm.cc SASLNAME).
func validSCRAMName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case 0, ',':
			return false
		case '=':
			if !strings.HasPrefix(name[i:], "=2C") && !strings.HasPrefix(name[i:], "=3D") {
				return false
			}
			i += 2
		}
	}
	return true
}
