package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

func mustUsersClient(t *testing.T, url string) UsersClient {
	t.Helper()
	cl, err := NewUsersClient(Config{URLs: []string{url}})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// bodyRecorder keeps each request's method, escaped path and JSON body.
type bodyRecorder struct {
	mu   sync.Mutex
	sent []string
	body map[string]string
}

func (b *bodyRecorder) handler(status int, answer string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.sent = append(b.sent, r.Method+" "+r.URL.EscapedPath())
		b.body = nil
		_ = json.Unmarshal(data, &b.body)
		b.mu.Unlock()
		w.WriteHeader(status)
		_, _ = w.Write([]byte(answer))
	}
}

// The requests are rpadmin's (common-go rpadmin/api_user.go): POST with username, password and
// algorithm; PUT and DELETE name the user, escaped, in the path; PUT's body has no username.
func TestUsersCallsSendRpadminsRequests(t *testing.T) {
	rec := &bodyRecorder{}
	cl := mustUsersClient(t, mustURL(t, rec.handler(http.StatusOK, "")))
	ctx := context.Background()
	u := User{Name: "app@team", Password: "s3cret", Mechanism: SCRAMSHA512}

	if err := cl.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"username": "app@team", "password": "s3cret", "algorithm": "SCRAM-SHA-512"}; !equalMaps(rec.body, want) {
		t.Errorf("create body %v, want %v", rec.body, want)
	}
	if err := cl.UpdateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"password": "s3cret", "algorithm": "SCRAM-SHA-512"}; !equalMaps(rec.body, want) {
		t.Errorf("update body %v, want %v", rec.body, want)
	}
	if err := cl.DeleteUser(ctx, "a/b"); err != nil {
		t.Fatal(err)
	}
	want := []string{"POST /v1/security/users", "PUT /v1/security/users/app@team", "DELETE /v1/security/users/a%2Fb"}
	if !slices.Equal(rec.sent, want) {
		t.Errorf("sent %q, want %q", rec.sent, want)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestUsersDecodesTheList(t *testing.T) {
	_, url := newBroker(t, http.StatusOK, `["admin","app"]`)
	got, err := mustUsersClient(t, url).Users(context.Background())
	if err != nil || !slices.Equal(got, []string{"admin", "app"}) {
		t.Fatalf("Users = %q, %v", got, err)
	}
	_, url = newBroker(t, http.StatusOK, `{"users":[]}`)
	if _, err := mustUsersClient(t, url).Users(context.Background()); !errors.Is(err, ErrBadResponse) {
		t.Fatalf("an object for a list: err = %v, want ErrBadResponse", err)
	}
}

// Redpanda answers a create of a user with another password, and an update of no user, with
// throw_on_error's 500 (security.cc; cluster/errc.h): the message tells them from an outage.
func TestUsersClassifiesRedpandasUserErrors(t *testing.T) {
	ctx := context.Background()
	u := User{Name: "app", Password: "p", Mechanism: SCRAMSHA256}
	for _, tc := range []struct {
		status int
		msg    string
		call   func(UsersClient) error
		want   error
	}{
		{500, "Unexpected cluster error: User already exists", func(c UsersClient) error { return c.CreateUser(ctx, u) }, ErrUserExists},
		{500, "Unexpected cluster error: User does not exist", func(c UsersClient) error { return c.UpdateUser(ctx, u) }, ErrUserNotFound},
		{500, "Unexpected cluster error: Timeout", func(c UsersClient) error { return c.CreateUser(ctx, u) }, ErrUnavailable},
		{400, "Invalid SCRAM username {a,b}", func(c UsersClient) error { return c.CreateUser(ctx, u) }, ErrBadRequest},
		{403, "Forbidden (superuser role required)", func(c UsersClient) error { _, err := c.Users(ctx); return err }, ErrForbidden},
	} {
		_, url := newBroker(t, tc.status, fmt.Sprintf(`{"message":%q,"code":%d}`, tc.msg, tc.status))
		if err := tc.call(mustUsersClient(t, url)); !errors.Is(err, tc.want) {
			t.Errorf("%d %q: err = %v, want %v", tc.status, tc.msg, err, tc.want)
		}
	}
}

// What Redpanda would refuse is refused before a request, and no error shows the password.
func TestUsersRefusesBadArgumentsWithoutARequest(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, "")
	cl := mustUsersClient(t, url)
	ctx := context.Background()
	for _, u := range []User{
		{Name: "", Password: "hidden", Mechanism: SCRAMSHA256},
		{Name: "a", Password: "", Mechanism: SCRAMSHA256},
		{Name: "a", Password: "hidden", Mechanism: "PLAIN"},
		{Name: "a,b", Password: "hidden", Mechanism: SCRAMSHA256},
	} {
		err := cl.CreateUser(ctx, u)
		if err == nil || strings.Contains(err.Error(), "hidden") {
			t.Errorf("CreateUser(%v) = %v", u, err)
		}
	}
	if err := cl.DeleteUser(ctx, ""); err == nil {
		t.Error("DeleteUser(\"\") sent")
	}
	if rec.count() != 0 {
		t.Errorf("%d requests sent for bad arguments", rec.count())
	}
}
