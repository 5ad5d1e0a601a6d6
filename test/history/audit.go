package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// AuditEntry is one write the apiserver completed, from its audit log (audit.k8s.io/v1 Event,
// stage ResponseComplete or Panic).
type AuditEntry struct {
	// Line is the entry's line number in the log, from 1.
	Line    int
	AuditID string
	User    string
	Verb    string
	// Key is objectRef's resource, namespace and name; Subresource is objectRef's.
	Key         Key
	Subresource string
	// Code is responseStatus.code; 0 when absent.
	Code int
	// Received and Completed are requestReceivedTimestamp and stageTimestamp, on the
	// apiserver's clock, to the microsecond.
	Received, Completed time.Time
	// RV and UID are the answered object's, from responseObject.metadata; the log holds them
	// only at level RequestResponse, "" otherwise.
	RV, UID string
}

// Succeeded reports whether the apiserver answered the write with a 2xx status: it applied it.
func (a *AuditEntry) Succeeded() bool { return a.Code >= 200 && a.Code <= 299 }

// Audit is the writes of an audit log, in the order the log holds them.
type Audit struct {
	Entries []AuditEntry
	// ByID indexes Entries by audit ID.
	ByID map[string]int
	// Truncated is 1 when the log's last line was cut short (being written) and skipped.
	Truncated int
}

// auditEvent is the part of an audit.k8s.io/v1 Event the checker reads.
type auditEvent struct {
	AuditID string `json:"auditID"`
	Stage   string `json:"stage"`
	Verb    string `json:"verb"`
	User    struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	ResponseObject *struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
			UID             string `json:"uid"`
		} `json:"metadata"`
	} `json:"responseObject"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time `json:"stageTimestamp"`
}

// writeVerbs are the audit verbs that change objects.
var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

// ParseAudit reads an apiserver audit log (JSON lines, one audit.k8s.io/v1 Event each) and
// keeps the completed writes that name an object. A last line without its newline is skipped
// and counted in Truncated; any other malformed line is an error naming its line number.
func ParseAudit(r io.Reader) (*Audit, error) {
	a := &Audit{ByID: map[string]int{}}
	br := bufio.NewReaderSize(r, 64*1024)
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF {
			switch {
			case len(b) == 0:
				return a, nil
			case !json.Valid(b):
				a.Truncated = 1
				return a, nil
			}
			return a, a.add(n, b)
		}
		if err != nil {
			return a, fmt.Errorf("audit log: line %d: %w", n, err)
		}
		if err := a.add(n, b); err != nil {
			return a, err
		}
	}
}

func (a *Audit) add(n int, b []byte) error {
	var ev auditEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return fmt.Errorf("audit log: line %d: %w", n, err)
	}
	if ev.Stage != "ResponseComplete" && ev.Stage != "Panic" || !writeVerbs[ev.Verb] || ev.ObjectRef == nil || ev.ObjectRef.Name == "" {
		return nil
	}
	e := AuditEntry{Line: n, AuditID: ev.AuditID, User: ev.User.Username, Verb: ev.Verb,
		Key:         Key{ev.ObjectRef.Resource, ev.ObjectRef.Namespace, ev.ObjectRef.Name},
		Subresource: ev.ObjectRef.Subresource, Received: ev.RequestReceivedTimestamp, Completed: ev.StageTimestamp}
	if ev.ResponseStatus != nil {
		e.Code = ev.ResponseStatus.Code
	}
	if ev.ResponseObject != nil {
		e.RV, e.UID = ev.ResponseObject.Metadata.ResourceVersion, ev.ResponseObject.Metadata.UID
	}
	if e.AuditID != "" {
		a.ByID[e.AuditID] = len(a.Entries)
	}
	a.Entries = append(a.Entries, e)
	return nil
}

// Entry returns the entry with audit ID id.
func (a *Audit) Entry(id string) (*AuditEntry, bool) {
	if a == nil || id == "" {
		return nil, false
	}
	i, ok := a.ByID[id]
	if !ok {
		return nil, false
	}
	return &a.Entries[i], true
}

// AppliedBefore reports whether the apiserver had applied and answered w before it received
// r: w succeeded, and w's stageTimestamp is strictly before r's requestReceivedTimestamp (one
// clock, the apiserver's).
func AppliedBefore(w, r *AuditEntry) bool {
	return w.Succeeded() && w.Completed.Before(r.Received)
}
