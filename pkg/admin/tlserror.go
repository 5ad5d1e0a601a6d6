package admin

import (
	"crypto/tls"
	"errors"
	"net"
	"strings"
)

// transportKind is the kind of an error that came with no answer: ErrTLS for a handshake
// refused for its certificates, ErrUnavailable otherwise.
func transportKind(err error) error {
	if tlsRefused(err) {
		return ErrTLS
	}
	return ErrUnavailable
}

// tlsRefused reports whether a transport error is a TLS handshake that failed for its
// certificates or settings rather than for the network: the broker ended it with a TLS alert (a
// client certificate missing or refused, with admin_api_tls require_client_auth, Redpanda's
// src/v/config/tls_config.cc), or the broker's certificate did not verify against the CA the
// client trusts. Which alert a broker sends depends on its TLS library, so any alert counts;
// crypto/tls reports one as a net.OpError whose Op is "remote error".
func tlsRefused(err error) bool {
	var verify *tls.CertificateVerificationError
	if errors.As(err, &verify) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error" && op.Err != nil && strings.HasPrefix(op.Err.Error(), "tls: ")
}
