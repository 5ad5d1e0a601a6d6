package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// FormatVersion is the version of the history file format, in its header line.
const FormatVersion = 1

// header is a history file's first line.
type header struct {
	History int       `json:"history"`
	Process string    `json:"process"`
	Anchor  time.Time `json:"anchor"`
}

// line is one event of a history file.
type line struct {
	Kind         string       `json:"kind"`
	Worker       int          `json:"worker"`
	Seq          uint64       `json:"seq"`
	Reconcile    uint64       `json:"reconcile,omitempty"`
	Resource     string       `json:"resource,omitempty"`
	Namespace    string       `json:"namespace,omitempty"`
	Name         string       `json:"name,omitempty"`
	UID          string       `json:"uid,omitempty"`
	RV           string       `json:"rv,omitempty"`
	Found        bool         `json:"found,omitempty"`
	Verb         string       `json:"verb,omitempty"`
	Precondition string       `json:"precondition,omitempty"`
	Code         int          `json:"code,omitempty"`
	Err          string       `json:"err,omitempty"`
	AuditID      string       `json:"auditID,omitempty"`
	Broker       string       `json:"broker,omitempty"`
	Source       DeleteSource `json:"source,omitempty"`
	Start        int64        `json:"start"`
	End          int64        `json:"end"`
}

// WriteTo writes h as JSON lines: a header, then one line per event.
func (h *History) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: bufio.NewWriter(w)}
	enc := json.NewEncoder(cw)
	if err := enc.Encode(header{History: FormatVersion, Process: h.Process, Anchor: h.Anchor}); err != nil {
		return cw.n, err
	}
	for i := range h.Events {
		e := &h.Events[i]
		l := line{Kind: e.Kind.String(), Worker: e.Worker, Seq: e.Seq, Reconcile: e.Reconcile,
			Resource: e.Key.Resource, Namespace: e.Key.Namespace, Name: e.Key.Name, UID: e.UID, RV: e.RV,
			Found: e.Found, Verb: e.Verb, Precondition: e.Precondition, Code: e.Code, Err: e.Err,
			AuditID: e.AuditID, Broker: e.Broker, Source: e.Source, Start: e.Start, End: e.End}
		if err := enc.Encode(l); err != nil {
			return cw.n, err
		}
	}
	return cw.n, cw.w.Flush()
}

type countingWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ReadHistory reads what History.WriteTo wrote. Events are sorted as in History.Events. Any
// malformed line is an error naming its line number.
func ReadHistory(r io.Reader) (*History, error) {
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	if !scanner.Scan() {
		if err := scanner.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("history: empty input, want a header line")
	}
	var hdr header
	if err := json.Unmarshal(scanner.Bytes(), &hdr); err != nil {
		return nil, fmt.Errorf("history: line 1: header: %w", err)
	}
	if hdr.History != FormatVersion {
		return nil, fmt.Errorf("history: line 1: format version %d, want %d", hdr.History, FormatVersion)
	}
	h := &History{Process: hdr.Process, Anchor: hdr.Anchor}
	for n := 2; scanner.Scan(); n++ {
		e, err := parseLine(scanner.Bytes())
		if err != nil {
			return nil, fmt.Errorf("history %s: line %d: %w", h.Process, n, err)
		}
		h.Events = append(h.Events, e)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("history %s: %w", h.Process, err)
	}
	sortEvents(h.Events)
	return h, nil
}

func parseLine(b []byte) (Event, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return Event{}, err
	}
	kind, err := ParseKind(l.Kind)
	if err != nil {
		return Event{}, err
	}
	if l.End < l.Start {
		return Event{}, fmt.Errorf("%s event ends (%d) before it starts (%d)", l.Kind, l.End, l.Start)
	}
	return Event{Kind: kind, Worker: l.Worker, Seq: l.Seq, Reconcile: l.Reconcile,
		Key: Key{l.Resource, l.Namespace, l.Name}, UID: l.UID, RV: l.RV, Found: l.Found, Verb: l.Verb,
		Precondition: l.Precondition, Code: l.Code, Err: l.Err, AuditID: l.AuditID, Broker: l.Broker,
		Source: l.Source, Start: l.Start, End: l.End}, nil
}
