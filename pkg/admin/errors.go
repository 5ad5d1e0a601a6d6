package admin

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, matched with errors.Is. Every error the client returns is an *Error whose
// Kind is at most one of them (none when the caller's context ended); an *Error whose Kind is
// ErrAlreadyDecommissioned or ErrNotDecommissioning because Redpanda refused a state transition
// also matches ErrInvalidStateTransition.
var (
	// ErrBrokerNotFound: the cluster has no member with that node ID (HTTP 404 whose message names
	// the broker). A broker whose decommission finished is no longer a member, so it is reported
	// this way too.
	ErrBrokerNotFound = errors.New("broker not found")
	// ErrAlreadyDecommissioned: Redpanda refused a decommission as an invalid state transition
	// (HTTP 400 "... invalid state transition requested"): the broker is not active, which means
	// it is draining already.
	ErrAlreadyDecommissioned = errors.New("broker already decommissioned")
	// ErrNotDecommissioning: the broker is not draining as far as Redpanda lets a caller act on
	// it: a recommission refused as an invalid state transition (not draining, or too far along
	// its drain), or decommission status' HTTP 400 "Node N is not decommissioning".
	ErrNotDecommissioning = errors.New("broker is not being decommissioned")
	// ErrInvalidStateTransition: HTTP 400 whose message is Redpanda's "can not update broker N
	// state, invalid state transition requested" (server.cc throw_on_error for
	// invalid_node_operation), e.g. maintenance mode asked for while another broker is in it.
	ErrInvalidStateTransition = errors.New("invalid broker state transition")
	// ErrBadRequest: any other HTTP 400: a malformed Authorization header, a node ID that is not
	// an integer, maintenance mode on a single-node cluster. Retrying does not help.
	ErrBadRequest = errors.New("admin API rejected the request")
	// ErrNotFound: HTTP 404 that names no broker, e.g. seastar's "Not found" for a route this
	// Redpanda release does not serve.
	ErrNotFound = errors.New("admin API path not found")
	// ErrUnavailable: no broker could answer: connection refused or reset, timeout, HTTP 5xx, 429
	// or 408, or a redirect the client would not follow.
	ErrUnavailable = errors.New("admin API unavailable")
	// ErrUnauthorized: HTTP 401, credentials missing or refused.
	ErrUnauthorized = errors.New("admin API refused the credentials")
	// ErrTLS: the TLS handshake failed for its certificates, not for the network: the broker
	// refused or required the client certificate (it ended the handshake with a TLS alert), or
	// its own certificate did not verify against Config.CACertPEM. Retrying does not help until
	// a certificate or the trusted CA changes.
	ErrTLS = errors.New("admin API TLS handshake refused")
	// ErrForbidden: HTTP 403, the user is authenticated but not allowed the call (a superuser
	// route asked for by a user who is not a superuser).
	ErrForbidden = errors.New("admin API forbids the call to this user")
	// ErrUserExists: a create found the user with another password. Redpanda has no status of
	// its own for it: throw_on_error's default, 500 "Unexpected cluster error: User already
	// exists" (server.cc; cluster::errc::user_exists, src/v/cluster/errc.h).
	ErrUserExists = errors.New("user already exists")
	// ErrUserNotFound: an update named no user: 500 "Unexpected cluster error: User does not
	// exist" (cluster::errc::user_does_not_exist), as for ErrUserExists.
	ErrUserNotFound = errors.New("user does not exist")
	// ErrBadResponse: the answer could not be understood: malformed or oversized body, missing
	// fields, or an HTTP status the API does not document for that call.
	ErrBadResponse = errors.New("bad admin API response")
)

// The messages of ErrUserExists and ErrUserNotFound: throw_on_error's "Unexpected cluster
// error: {}" around cluster::errc's message.
const (
	userExistsMessage  = "Unexpected cluster error: User already exists"
	userMissingMessage = "Unexpected cluster error: User does not exist"
)

// Error describes a failed admin API call.
type Error struct {
	// Op names the call, e.g. "decommission broker 101".
	Op string
	// URL is the last URL tried; empty if none was.
	URL string
	// StatusCode is the HTTP status received, 0 when there was no response.
	StatusCode int
	// Message is the broker's error message, when its body carried one.
	Message string
	// Kind is the sentinel this error matches (nil when the caller's context ended).
	Kind error
	// Err is the underlying cause, if any (a transport error, a decoding error, context errors).
	Err error
	// transition is set when Redpanda refused a state transition (see ErrInvalidStateTransition).
	transition bool
}

func (e *Error) Error() string {
	return "admin: " + e.Op + ": " + e.detail()
}

// detail is the error without the operation: kind, status, message, URL and cause.
func (e *Error) detail() string {
	var b strings.Builder
	if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	}
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.StatusCode)
		if e.Message != "" {
			fmt.Fprintf(&b, ": %q", e.Message)
		}
		b.WriteString(")")
	}
	if e.URL != "" {
		fmt.Fprintf(&b, " from %s", e.URL)
	}
	if e.Err != nil {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Is reports whether target is the error's Kind, or ErrInvalidStateTransition for a refused
// state transition.
func (e *Error) Is(target error) bool {
	if e.Kind == nil {
		return false
	}
	return target == e.Kind || (e.transition && target == ErrInvalidStateTransition)
}

// Unwrap exposes the cause, so errors.Is(err, context.DeadlineExceeded) works.
func (e *Error) Unwrap() error { return e.Err }

// attemptErrors lists the failed attempts of one call, one broker each, on a single line.
type attemptErrors []*Error

func (a attemptErrors) Error() string {
	parts := make([]string, len(a))
	for i, e := range a {
		parts[i] = e.detail()
	}
	return strings.Join(parts, "; ")
}

// Unwrap lets errors.Is and errors.As see every attempt.
func (a attemptErrors) Unwrap() []error {
	errs := make([]error, len(a))
	for i, e := range a {
		errs[i] = e
	}
	return errs
}
