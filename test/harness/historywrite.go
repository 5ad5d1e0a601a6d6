package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/broker-operator/broker-operator/test/history"
)

// WriteEvent begins the history event (test/history) of a write request: its key, verb, and
// the resourceVersion its body sends as a precondition (metadata.resourceVersion of an update
// or a patch, preconditions.resourceVersion of a delete's options). Its times are the
// caller's; Answer adds the answer. req's body is left as it was.
func WriteEvent(req *http.Request, info Request) history.Event {
	e := history.Event{
		Kind: history.KindWrite,
		Key:  history.Key{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name},
		Verb: info.Verb,
	}
	if body, ok := requestBody(req); ok {
		var sent struct {
			Metadata struct {
				Name            string `json:"name"`
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
			Preconditions struct {
				ResourceVersion *string `json:"resourceVersion"`
			} `json:"preconditions"`
		}
		if json.Unmarshal(body, &sent) == nil {
			e.Precondition = sent.Metadata.ResourceVersion
			if p := sent.Preconditions.ResourceVersion; p != nil {
				e.Precondition = *p
			}
			if e.Key.Name == "" {
				e.Key.Name = sent.Metadata.Name // a create's path names no object
			}
		}
	}
	return e
}

// requestBody returns a copy of req's body, leaving req as it was.
func requestBody(req *http.Request) ([]byte, bool) {
	if req.GetBody == nil || req.Body == nil || req.Body == http.NoBody {
		return nil, false
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil, false
	}
	defer func() { _ = rc.Close() }()
	body, err := io.ReadAll(rc)
	return body, err == nil
}

// Answer completes a write's event with its answer: err, or the status code, the Audit-Id
// header and, for a 2xx answer, the answered object's UID and resourceVersion (and its name,
// when the request's named none: a generated name). It returns the 2xx answer's body and
// leaves resp.Body readable for the caller.
func Answer(e *history.Event, resp *http.Response, err error) []byte {
	if err != nil {
		e.Err = err.Error()
	}
	if resp == nil {
		return nil
	}
	e.Code = resp.StatusCode
	e.AuditID = resp.Header.Get("Audit-Id")
	if e.Code < 200 || e.Code > 299 {
		return nil
	}
	body, readErr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if readErr != nil {
		return nil
	}
	var answer struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name            string `json:"name"`
			UID             string `json:"uid"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &answer) != nil || answer.Kind == "Status" {
		return body
	}
	e.UID, e.RV = answer.Metadata.UID, answer.Metadata.ResourceVersion
	if e.Key.Name == "" {
		e.Key.Name = answer.Metadata.Name
	}
	return body
}

// DeletedUID reports whether a write's answer (Answer's body) says a delete removed its
// object, and names the object's UID: a Status of success naming it, or the object itself
// answered 200 with no deletionTimestamp (a graceful delete answers the object with one, and
// the object stays until its grace ends).
func DeletedUID(e history.Event, answer []byte) (string, bool) {
	if e.Verb != VerbDelete || !e.Succeeded() || len(answer) == 0 {
		return "", false
	}
	var a struct {
		Kind     string `json:"kind"`
		Status   string `json:"status"`
		Metadata struct {
			UID               string  `json:"uid"`
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
		Details struct {
			UID string `json:"uid"`
		} `json:"details"`
	}
	if json.Unmarshal(answer, &a) != nil {
		return "", false
	}
	switch {
	case a.Kind == "Status":
		return a.Details.UID, a.Status == "Success" && a.Details.UID != ""
	case e.Code == 200 && a.Metadata.DeletionTimestamp == nil:
		return a.Metadata.UID, a.Metadata.UID != ""
	}
	return "", false
}
