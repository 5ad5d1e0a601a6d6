package admin

import "context"

// UsersClient manages the SCRAM users of a cluster: the calls of `rpk security user`
// (redpanda-data/common-go rpadmin/api_user.go). NewUsersClient returns one. Every call needs
// a superuser.
type UsersClient interface {
	// Users lists the names of the cluster's SCRAM users (GET /v1/security/users).
	Users(ctx context.Context) ([]string, error)
	// CreateUser creates a user (POST /v1/security/users). It succeeds when the user exists
	// with this password already; ErrUserExists: it exists with another password.
	CreateUser(ctx context.Context, u User) error
	// UpdateUser sets a user's password and mechanism (PUT /v1/security/users/{user}).
	// ErrUserNotFound: there is no such user.
	UpdateUser(ctx context.Context, u User) error
	// DeleteUser deletes a user (DELETE /v1/security/users/{user}); it succeeds when there is
	// no such user.
	DeleteUser(ctx context.Context, name string) error
}

// Mechanism is a SCRAM mechanism, as the algorithm field of the users calls names it
// (security::scram_sha256_authenticator::name, scram_sha512_authenticator::name).
type Mechanism string

// SCRAM mechanisms.
const (
	SCRAMSHA256 Mechanism = "SCRAM-SHA-256"
	SCRAMSHA512 Mechanism = "SCRAM-SHA-512"
)

// User is a SCRAM user and its password. Its String hides the password.
type User struct {
	Name      string
	Password  string
	Mechanism Mechanism
}

func (u User) String() string { return "User{" + u.Name + " " + string(u.Mechanism) + "}" }
