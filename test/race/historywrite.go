package race

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// historyWrite is a write on its way, to be recorded in a history once its answer is back.
type historyWrite struct {
	ctx   context.Context
	event history.Event
}

// startHistoryWrite begins recording a write: its key, verb, start and the resourceVersion
// its body sends as a precondition (metadata.resourceVersion of an update or a patch,
// preconditions.resourceVersion of a delete's options).
func (r *Recorder) startHistoryWrite(req *http.Request, info harness.Request) *historyWrite {
	e := history.Event{
		Key:   history.Key{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name},
		Verb:  info.Verb,
		Start: r.history.Now(),
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
	return &historyWrite{ctx: req.Context(), event: e}
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

// finish records the write with its answer: the status code, the Audit-Id header, and the
// answered object's resourceVersion and UID (leaving resp.Body readable), or err.
func (w *historyWrite) finish(rec *history.Recorder, resp *http.Response, err error) {
	e := w.event
	if err != nil {
		e.Err = err.Error()
	}
	if resp != nil {
		e.Code = resp.StatusCode
		e.AuditID = resp.Header.Get("Audit-Id")
		if e.Code >= 200 && e.Code <= 299 {
			e.UID, e.RV = answeredObject(resp)
		}
	}
	rec.Write(w.ctx, e)
}

// answeredObject reads the UID and resourceVersion of the object an answer holds ("" when it
// holds none), and leaves resp.Body as it was for the caller.
func answeredObject(resp *http.Response) (uid, rv string) {
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", ""
	}
	var answer struct {
		Kind     string `json:"kind"`
		Metadata struct {
			UID             string `json:"uid"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &answer) != nil || answer.Kind == "Status" {
		return "", ""
	}
	return answer.Metadata.UID, answer.Metadata.ResourceVersion
}
