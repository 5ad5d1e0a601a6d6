package admintest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// send makes one raw request as the superuser admin:pw and returns the status and body.
func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("admin", "pw")
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// The users routes answer as security.cc's handlers: the statuses and messages of
// parse_json_body, parse_scram_credential and create/update/delete_user_handler, with
// throw_on_error's 500 for cluster::errc::user_exists and user_does_not_exist.
func TestUsersRoutesAnswerAsRedpanda(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Username: "admin", Password: "pw"})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	users := c.URLs(1)[0] + "/v1/security/users"
	for _, tc := range []struct {
		name, method, url, body string
		status                  int
		message                 string
	}{
		{"create", "POST", users, `{"username":"app","password":"p1","algorithm":"SCRAM-SHA-256"}`, 200, ""},
		{"create again, same password", "POST", users, `{"username":"app","password":"p1","algorithm":"SCRAM-SHA-256"}`, 200, ""},
		{"create again, another password", "POST", users, `{"username":"app","password":"p2","algorithm":"SCRAM-SHA-256"}`, 500, "Unexpected cluster error: User already exists"},
		{"create again, another mechanism", "POST", users, `{"username":"app","password":"p1","algorithm":"SCRAM-SHA-512"}`, 500, "Unexpected cluster error: User already exists"},
		{"not JSON", "POST", users, `{`, 400, "JSON parse error"},
		{"not an object", "POST", users, `[]`, 400, "Not an object"},
		{"no algorithm", "POST", users, `{"username":"x","password":"p"}`, 400, "String algo missing"},
		{"no password", "POST", users, `{"username":"x","algorithm":"SCRAM-SHA-256"}`, 400, "String password smissing"},
		{"unknown algorithm", "POST", users, `{"username":"x","password":"p","algorithm":"PLAIN"}`, 400, "Unknown scram algorithm: PLAIN"},
		{"no username", "POST", users, `{"password":"p","algorithm":"SCRAM-SHA-256"}`, 400, "String username missing"},
		{"a comma in the username", "POST", users, `{"username":"a,b","password":"p","algorithm":"SCRAM-SHA-256"}`, 400, "Invalid SCRAM username {a,b}"},
		{"update", "PUT", users + "/app", `{"password":"p3","algorithm":"SCRAM-SHA-512"}`, 200, ""},
		{"update no user", "PUT", users + "/nobody", `{"password":"p","algorithm":"SCRAM-SHA-256"}`, 500, "Unexpected cluster error: User does not exist"},
		{"list", "GET", users, "", 200, `["admin","app"]`},
		{"delete", "DELETE", users + "/app", "", 200, ""},
		{"delete again", "DELETE", users + "/app", "", 200, ""},
		{"list after", "GET", users, "", 200, `["admin"]`},
	} {
		status, body := send(t, tc.method, tc.url, tc.body)
		if status != tc.status || !strings.Contains(body, tc.message) {
			t.Errorf("%s: %d %s, want %d %q", tc.name, status, body, tc.status, tc.message)
		}
	}
}

// The users routes are register_route<superuser>; a user made through them authenticates, as
// request_auth.cc checks Basic credentials against the credential store.
func TestUsersNeedASuperuserAndMadeUsersAuthenticate(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Username: "admin", Password: "pw"})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	ctx := context.Background()
	super, err := admin.NewUsersClient(c.Config(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := super.CreateUser(ctx, admin.User{Name: "app", Password: "p", Mechanism: admin.SCRAMSHA512}); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.User("app"); !ok || got != (admintest.UserCredential{Password: "p", Mechanism: "SCRAM-SHA-512"}) {
		t.Fatalf("credential store holds %+v, %t", got, ok)
	}
	cfg := c.Config(1)
	cfg.Username, cfg.Password = "app", "p"
	app, _ := admin.NewUsersClient(cfg)
	if _, err := app.Users(ctx); !errors.Is(err, admin.ErrForbidden) {
		t.Errorf("a user who is not a superuser lists users: %v, want ErrForbidden", err)
	}
	brokers, _ := admin.NewClient(cfg)
	if _, err := brokers.Brokers(ctx); err != nil {
		t.Errorf("the new user cannot authenticate on a user route: %v", err)
	}
}

// The writes run on the controller leader: another broker redirects there
// (need_redirect_to_leader), and the client follows to the leader, one of its URLs.
func TestUsersWritesGoToTheControllerLeader(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Username: "admin", Password: "pw"})
	c := s.Cluster("ns", "c")
	joinAll(c, 3)
	c.SetControllerLeader(2)
	status, _ := send(t, "POST", c.URLs(1)[0]+"/v1/security/users", `{"username":"app","password":"p","algorithm":"SCRAM-SHA-256"}`)
	if status != http.StatusTemporaryRedirect {
		t.Fatalf("a create at a broker that is not the leader: %d, want 307", status)
	}
	if _, ok := c.User("app"); ok {
		t.Fatal("a redirected create made the user")
	}
	cl, _ := admin.NewUsersClient(c.Config(3))
	if err := cl.CreateUser(context.Background(), admin.User{Name: "app", Password: "p", Mechanism: admin.SCRAMSHA256}); err != nil {
		t.Fatal(err)
	}
	var created bool
	for _, call := range c.Calls() {
		if call.Method == http.MethodPost && call.Status == http.StatusOK {
			created = call.Ordinal == 2
		}
	}
	if !created {
		t.Errorf("the create was not carried out by the leader: %+v", c.Calls())
	}
	users, err := cl.Users(context.Background())
	if err != nil || !slices.Equal(users, []string{"admin", "app"}) {
		t.Errorf("Users = %q, %v", users, err)
	}
}

// A cluster with no SCRAM user at all (no superuser: authentication not required) lists [],
// as list_users_handler's empty array, never null.
func TestUsersListIsAnArrayWhenEmpty(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	if status, body := send(t, "GET", c.URLs(1)[0]+"/v1/security/users", ""); status != 200 || strings.TrimSpace(body) != "[]" {
		t.Fatalf("list: %d %s, want 200 []", status, body)
	}
}
