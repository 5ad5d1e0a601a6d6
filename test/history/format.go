package history

import (
	"bufio"
	"bytes"
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
	History    int       `json:"history"`
	Process    string    `json:"process"`
	Anchor     time.Time `json:"anchor"`
	Unreadable int       `json:"unreadable,omitempty"`
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
	Start        *int64       `json:"start"`
	End          *int64       `json:"end"`
}

// maxLine is the longest line ReadHistory reads.
const maxLine = 1024 * 1024

// WriteTo writes h as JSON lines: a header, then one line per event.
func (h *History) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: bufio.NewWriter(w)}
	enc := json.NewEncoder(cw)
	if err := enc.Encode(header{History: FormatVersion, Process: h.Process, Anchor: h.Anchor, Unreadable: h.Unreadable}); err != nil {
		return cw.n, err
	}
	for i := range h.Events {
		e := &h.Events[i]
		l := line{Kind: e.Kind.String(), Worker: e.Worker, Seq: e.Seq, Reconcile: e.Reconcile,
			Resource: e.Key.Resource, Namespace: e.Key.Namespace, Name: e.Key.Name, UID: e.UID, RV: e.RV,
			Found: e.Found, Verb: e.Verb, Precondition: e.Precondition, Code: e.Code, Err: e.Err,
			AuditID: e.AuditID, Broker: e.Broker, Source: e.Source, Start: &e.Start, End: &e.End}
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
// malformed line is an error naming its line number: a field the format does not have, an
// event without start or end, a line longer than maxLine.
func ReadHistory(r io.Reader) (*History, error) {
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 64*1024), maxLine)
	n := 1
	scanErr := func(process string) error {
		err := scanner.Err()
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("history %s: line %d: longer than %d bytes", process, n, maxLine)
		}
		return fmt.Errorf("history %s: line %d: %w", process, n, err)
	}
	if !scanner.Scan() {
		if scanner.Err() != nil {
			return nil, scanErr("")
		}
		return nil, errors.New("history: empty input, want a header line")
	}
	var hdr header
	if err := strictUnmarshal(scanner.Bytes(), &hdr); err != nil {
		return nil, fmt.Errorf("history: line 1: header: %w", err)
	}
	if hdr.History != FormatVersion {
		return nil, fmt.Errorf("history: line 1: format version %d, want %d", hdr.History, FormatVersion)
	}
	h := &History{Process: hdr.Process, Anchor: hdr.Anchor, Unreadable: hdr.Unreadable}
	for n = 2; scanner.Scan(); n++ {
		e, err := parseLine(scanner.Bytes())
		if err != nil {
			return nil, fmt.Errorf("history %s: line %d: %w", h.Process, n, err)
		}
		h.Events = append(h.Events, e)
	}
	if scanner.Err() != nil {
		return nil, scanErr(h.Process)
	}
	sortEvents(h.Events)
	return h, nil
}

// strictUnmarshal decodes one JSON value into v, refusing fields v does not have and anything
// after the value.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func parseLine(b []byte) (Event, error) {
	var l line
	if err := strictUnmarshal(b, &l); err != nil {
		return Event{}, err
	}
	kind, err := ParseKind(l.Kind)
	if err != nil {
		return Event{}, err
	}
	if l.Start == nil || l.End == nil {
		return Event{}, fmt.Errorf("%s event without start or end", l.Kind)
	}
	if *l.End < *l.Start {
		return Event{}, fmt.Errorf("%s event ends (%d) before it starts (%d)", l.Kind, *l.End, *l.Start)
	}
	return Event{Kind: kind, Worker: l.Worker, Seq: l.Seq, Reconcile: l.Reconcile,
		Key: Key{l.Resource, l.Namespace, l.Name}, UID: l.UID, RV: l.RV, Found: l.Found, Verb: l.Verb,
		Precondition: l.Precondition, Code: l.Code, Err: l.Err, AuditID: l.AuditID, Broker: l.Broker,
		Source: l.Source, Start: *l.Start, End: *l.End}, nil
}
