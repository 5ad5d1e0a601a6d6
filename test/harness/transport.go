package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// RoundTripperFunc is a function that is an http.RoundTripper.
type RoundTripperFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f RoundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Written is the object a write's answer describes.
type Written struct {
	Name, Namespace, ResourceVersion string
}

// ReadWritten reads the object a successful write answered with, and leaves resp.Body as it
// was for the caller. ok is false when the body named no object (a Status, or not JSON). The
// name comes from the body, since a create's path has none.
func ReadWritten(resp *http.Response) (obj Written, ok bool, err error) {
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return Written{}, false, err
	}
	var answer struct {
		Metadata Written `json:"metadata"`
	}
	if json.Unmarshal(body, &answer) != nil || answer.Metadata.Name == "" {
		return Written{}, false, nil
	}
	return answer.Metadata, true, nil
}
