package admin

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, matched with errors.Is. Every error the client returns is an *Error that
// matches at most one of them (or none, when the caller's context ended).
var (
	// ErrBrokerNotFound: the cluster has no member with that node ID (HTTP 404). A broker whose
	// decommission finished is no longer a member, so it is reported this way too.
	ErrBrokerNotFound = errors.New("broker not found")
	// ErrAlreadyDecommissioned: a decommission was requested for a broker that is not active,
	// which means it is draining already (HTTP 400 on PUT .../decommission).
	ErrAlreadyDecommissioned = errors.New("broker already decommissioned")
	// ErrNotDecommissioning: recommission or decommission status asked about a broker that is not
	// draining (HTTP 400 on PUT .../recommission and GET .../decommission).
	ErrNotDecommissioning = errors.New("broker is not being decommissioned")
	// ErrUnavailable: no broker could answer: connection refused or reset, timeout, HTTP 5xx or 429.
	ErrUnavailable = errors.New("admin API unavailable")
	// ErrUnauthorized: the brokers refused the credentials (HTTP 401 or 403).
	ErrUnauthorized = errors.New("admin API refused the credentials")
	// ErrBadResponse: the answer could not be understood: malformed or oversized body, missing
	// fields, or an HTTP status the API does not document for that call.
	ErrBadResponse = errors.New("bad admin API response")
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

// Is reports whether target is the error's Kind.
func (e *Error) Is(target error) bool { return e.Kind != nil && target == e.Kind }

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
