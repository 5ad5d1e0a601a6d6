package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// readCapped reads at most limit bytes of r; a longer body is an error, so a broken or hostile
// peer cannot make the client hold more than limit bytes.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("body exceeds %d bytes", limit)
	}
	return body, nil
}

// wireBroker mirrors the "broker" model of Redpanda's broker.json. Pointers tell absent fields
// from zero values.
type wireBroker struct {
	NodeID             *int64  `json:"node_id"`
	MembershipStatus   *string `json:"membership_status"`
	IsAlive            *bool   `json:"is_alive"`
	InternalRPCAddress *string `json:"internal_rpc_address"`
	InternalRPCPort    *int64  `json:"internal_rpc_port"`
}

// wireDecommissionStatus mirrors the "decommission_status" model of broker.json.
type wireDecommissionStatus struct {
	Finished           *bool             `json:"finished"`
	ReplicasLeft       *int64            `json:"replicas_left"`
	AllocationFailures []string          `json:"allocation_failures"`
	Partitions         []json.RawMessage `json:"partitions"`
}

// wireError is the body seastar's HTTP server writes for a failed request.
type wireError struct {
	Message string `json:"message"`
	Code    int    `json:"code"`
}

// decodeBrokers parses the body of GET /v1/brokers.
func decodeBrokers(r io.Reader, limit int64) ([]Broker, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return nil, err
	}
	if err := expectJSON(body, '['); err != nil {
		return nil, err
	}
	var wire []wireBroker
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, fmt.Errorf("decoding broker list: %w", err)
	}
	brokers := make([]Broker, 0, len(wire))
	seen := make(map[int]bool, len(wire))
	for i, w := range wire {
		b, err := w.broker()
		if err != nil {
			return nil, fmt.Errorf("broker list entry %d: %w", i, err)
		}
		if seen[b.NodeID] {
			return nil, fmt.Errorf("broker list entry %d: node_id %d listed twice", i, b.NodeID)
		}
		seen[b.NodeID] = true
		brokers = append(brokers, b)
	}
	return brokers, nil
}

func (w wireBroker) broker() (Broker, error) {
	if w.NodeID == nil {
		return Broker{}, errors.New("missing node_id")
	}
	if *w.NodeID < 0 || *w.NodeID > math.MaxInt32 {
		return Broker{}, fmt.Errorf("node_id %d out of range", *w.NodeID)
	}
	if w.MembershipStatus == nil || *w.MembershipStatus == "" {
		return Broker{}, errors.New("missing membership_status")
	}
	b := Broker{NodeID: int(*w.NodeID), MembershipStatus: MembershipStatus(*w.MembershipStatus)}
	if w.IsAlive != nil {
		b.IsAlive = *w.IsAlive
	}
	if w.InternalRPCAddress != nil {
		b.InternalRPCAddress = *w.InternalRPCAddress
	}
	if w.InternalRPCPort != nil {
		if *w.InternalRPCPort < 0 || *w.InternalRPCPort > 65535 {
			return Broker{}, fmt.Errorf("internal_rpc_port %d out of range", *w.InternalRPCPort)
		}
		b.InternalRPCPort = int(*w.InternalRPCPort)
	}
	return b, nil
}

// decodeDecommissionStatus parses the body of GET /v1/brokers/{id}/decommission.
func decodeDecommissionStatus(r io.Reader, limit int64) (DecommissionStatus, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return DecommissionStatus{}, err
	}
	if err := expectJSON(body, '{'); err != nil {
		return DecommissionStatus{}, err
	}
	var w wireDecommissionStatus
	if err := json.Unmarshal(body, &w); err != nil {
		return DecommissionStatus{}, fmt.Errorf("decoding decommission status: %w", err)
	}
	if w.Finished == nil {
		return DecommissionStatus{}, errors.New("decommission status: missing finished")
	}
	st := DecommissionStatus{
		Finished:           *w.Finished,
		AllocationFailures: w.AllocationFailures,
		MovingPartitions:   len(w.Partitions),
	}
	if w.ReplicasLeft != nil {
		if *w.ReplicasLeft < 0 || *w.ReplicasLeft > math.MaxInt32 {
			return DecommissionStatus{}, fmt.Errorf("decommission status: replicas_left %d out of range", *w.ReplicasLeft)
		}
		st.ReplicasLeft = int(*w.ReplicasLeft)
	}
	return st, nil
}

// expectJSON rejects bodies whose top-level value is not of the expected kind ('[' or '{'),
// including null, which json.Unmarshal would silently accept.
func expectJSON(body []byte, open byte) error {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return errors.New("empty body")
	}
	if trimmed[0] != open {
		kind := "an array"
		if open == '{' {
			kind = "an object"
		}
		return fmt.Errorf("body is not %s: starts with %q", kind, snippet(trimmed, 16))
	}
	return nil
}

// maxMessageLen bounds the error message kept from a failed response.
const maxMessageLen = 256

// errorMessage extracts a readable message from an error response body: seastar's
// {"message": ..., "code": ...} when present, the text itself otherwise.
func errorMessage(body []byte) string {
	var w wireError
	if json.Unmarshal(body, &w) == nil && w.Message != "" {
		return snippet([]byte(w.Message), maxMessageLen)
	}
	return snippet(bytes.TrimSpace(body), maxMessageLen)
}

// snippet returns at most n bytes of b as valid UTF-8, marking a cut with "...".
func snippet(b []byte, n int) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
