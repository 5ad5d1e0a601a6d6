package admintest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// sendAs makes one raw request with the given basic credentials (none when user is "").
func sendAs(t *testing.T, user, password, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// Authentication is turned on live, as admin/server.cc and request_auth.cc do it: credentials
// of a user that does not exist yet pass as anonymous while it is off; admin_api_require_auth
// is refused without superusers, and from a caller who is not one; once on, anonymous calls and
// users outside superusers are refused.
func TestAdminAuthTurnedOnLive(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	base := c.URLs(1)[0]
	config := base + "/v1/cluster_config"
	users := base + "/v1/security/users"
	steps := []struct {
		name, user, password, method, url, body string
		status                                  int
		message                                 string
	}{
		{"unknown credentials pass as anonymous", "op", "pw", "GET", config + "?key=admin_api_require_auth", "", 200, "false"},
		{"no superusers", "", "", "PUT", config, `{"upsert":{"admin_api_require_auth":true},"remove":[]}`, 400, "No superusers defined"},
		{"create the user", "op", "pw", "POST", users, `{"username":"op","password":"pw","algorithm":"SCRAM-SHA-256"}`, 200, ""},
		{"grant", "op", "pw", "PUT", config, `{"upsert":{"superusers":["other","op"]},"remove":[]}`, 200, ""},
		{"anonymous may not turn it on", "", "", "PUT", config, `{"upsert":{"admin_api_require_auth":true},"remove":[]}`, 400, "May only be set by a superuser"},
		{"a wrong password is anonymous", "op", "nope", "PUT", config, `{"upsert":{"admin_api_require_auth":true},"remove":[]}`, 400, "May only be set by a superuser"},
		{"the superuser turns it on", "op", "pw", "PUT", config, `{"upsert":{"admin_api_require_auth":true},"remove":[]}`, 200, ""},
		{"anonymous refused", "", "", "GET", config, "", 403, "superuser role required"},
		{"wrong password refused", "op", "nope", "GET", config, "", 401, "Unauthorized"},
		{"a user who is not a superuser", "app", "p", "POST", users, `{"username":"app","password":"p","algorithm":"SCRAM-SHA-256"}`, 401, "Unauthorized"},
		{"the superuser makes one", "op", "pw", "POST", users, `{"username":"app","password":"p","algorithm":"SCRAM-SHA-256"}`, 200, ""},
		{"who is refused superuser routes", "app", "p", "GET", users, "", 403, "superuser role required"},
		{"a rotation through the old password", "op", "pw", "PUT", users + "/op", `{"password":"pw2","algorithm":"SCRAM-SHA-256"}`, 200, ""},
		{"the old password is refused", "op", "pw", "GET", users, "", 401, "Unauthorized"},
		{"the new one works", "op", "pw2", "GET", users, "", 200, "op"},
	}
	for _, st := range steps {
		status, body := sendAs(t, st.user, st.password, st.method, st.url, st.body)
		if status != st.status || !strings.Contains(body, st.message) {
			t.Fatalf("%s: %d %s, want %d with %q", st.name, status, body, st.status, st.message)
		}
	}
}
