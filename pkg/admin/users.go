package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// The users calls follow Redpanda's own client, rpadmin (redpanda-data/common-go
// rpadmin/api_user.go: CreateUser, UpdateUser, DeleteUser, ListUsers), and the admin server's
// handlers (redpanda-data/redpanda src/v/redpanda/admin/security.cc: register_security_routes,
// which registers all four as register_route<superuser>; create_user_handler,
// update_user_handler, delete_user_handler; api-doc/security.json). The writes run on the
// controller leader: another broker answers 307 to it (need_redirect_to_leader), which the
// client follows.
//
// Creating a user that exists with the same password, and deleting one that does not exist,
// succeed (the handlers' "Idempotency" branches), so a write whose answer was lost may be sent
// again.

const usersPath = "/v1/security/users"

// NewUsersClient checks cfg and returns a UsersClient for the brokers it names.
func NewUsersClient(cfg Config) (UsersClient, error) {
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return c.(*httpClient), nil
}

func (c *httpClient) Users(ctx context.Context) ([]string, error) {
	var users []string
	err := c.do(ctx, call{
		op: "list users", method: http.MethodGet, path: usersPath, nodeID: -1,
		decode: func(body io.Reader) error {
			data, err := readCapped(body, c.maxBody)
			if err != nil {
				return err
			}
			// list_users returns a JSON array of the user names.
			if err := expectJSON(data, '['); err != nil {
				return err
			}
			return json.Unmarshal(data, &users)
		},
	})
	return users, err
}

func (c *httpClient) CreateUser(ctx context.Context, u User) error {
	op := fmt.Sprintf("create user %q", u.Name)
	if err := u.check(); err != nil {
		return &Error{Op: op, Err: err}
	}
	body, _ := json.Marshal(map[string]string{"username": u.Name, "password": u.Password, "algorithm": string(u.Mechanism)})
	return c.do(ctx, call{op: op, method: http.MethodPost, path: usersPath, nodeID: -1, body: body})
}

func (c *httpClient) UpdateUser(ctx context.Context, u User) error {
	op := fmt.Sprintf("update user %q", u.Name)
	if err := u.check(); err != nil {
		return &Error{Op: op, Err: err}
	}
	body, _ := json.Marshal(map[string]string{"password": u.Password, "algorithm": string(u.Mechanism)})
	return c.do(ctx, call{op: op, method: http.MethodPut, path: userPath(u.Name), nodeID: -1, body: body})
}

func (c *httpClient) DeleteUser(ctx context.Context, name string) error {
	op := fmt.Sprintf("delete user %q", name)
	if name == "" {
		return &Error{Op: op, Err: errors.New("empty user name")}
	}
	return c.do(ctx, call{op: op, method: http.MethodDelete, path: userPath(name), nodeID: -1})
}

// userPath escapes the name as one path segment, as rpadmin does (url.PathEscape).
func userPath(name string) string { return usersPath + "/" + url.PathEscape(name) }

// check refuses what Redpanda would refuse with a 400 before the request is sent.
func (u User) check() error {
	switch {
	case u.Name == "":
		return errors.New("empty user name")
	case u.Password == "":
		return errors.New("empty password")
	case u.Mechanism != SCRAMSHA256 && u.Mechanism != SCRAMSHA512:
		return fmt.Errorf("mechanism %q; want %s or %s", u.Mechanism, SCRAMSHA256, SCRAMSHA512)
	case strings.ContainsAny(u.Name, ",="):
		// security::validate_scram_username: a SASL name escapes these as =2C and =3D.
		return errors.New("a SCRAM user name cannot hold ',' or '='")
	}
	return nil
}
