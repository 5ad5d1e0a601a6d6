package history

import (
	"fmt"
	"time"
)

// Kind says what an Event records.
type Kind uint8

const (
	// KindRead is a read through a lister (or the write-back overlay): found or not found.
	KindRead Kind = iota + 1
	// KindWrite is a request that changes an object: create, update, patch or delete.
	KindWrite
	// KindDelete says the process learned that an object (a UID) is gone: its own delete was
	// answered with the object gone, or an informer delivered the deletion.
	KindDelete
	// KindAdmin is an irreversible call to a broker's admin API.
	KindAdmin
	// KindLeading says the process became the leader, holding the Lease named by Key.
	KindLeading
)

var kindNames = [...]string{KindRead: "read", KindWrite: "write", KindDelete: "delete", KindAdmin: "admin", KindLeading: "leading"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if name != "" && name == s {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown event kind %q", s)
}

// Key names an object: its resource (plural, without the API group, as "brokerclusters"),
// namespace ("" when cluster-scoped) and name. A status subresource write has the object's key.
type Key struct {
	Resource, Namespace, Name string
}

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Resource + " " + k.Name
	}
	return k.Resource + " " + k.Namespace + "/" + k.Name
}

// DeleteSource says how a process learned of a delete.
type DeleteSource string

const (
	// DeleteMade: the process deleted the object itself and the answer said it is gone.
	DeleteMade DeleteSource = "made"
	// DeleteObserved: an informer of the process delivered the deletion.
	DeleteObserved DeleteSource = "observed"
)

// Event is one recorded operation of one process. Which fields matter depends on Kind; the
// others stay zero. Times are nanoseconds on the process's monotonic clock since its History's
// Anchor, so they compare only within one process.
type Event struct {
	Kind Kind
	// Worker is the recording worker (Recorder.Log); Seq numbers its events from 1.
	Worker int
	Seq    uint64
	// Reconcile is the process-unique ID of the reconcile that made the event; 0 for none.
	Reconcile uint64
	// Key is the object read, written or deleted; for KindAdmin the object whose facts the
	// call relies on (the BrokerCluster); for KindLeading the Lease.
	Key Key
	// UID is the object's UID as read, answered by a write, or deleted.
	UID string
	// RV is the resourceVersion read (KindRead, when Found), answered (KindWrite) or last
	// known of a deleted object (KindDelete); "" when unknown.
	RV string
	// Found is false for a read that found no object.
	Found bool
	// Verb is the write's verb (create, update, patch, delete) or the admin call's name
	// (decommission, recommission, maintenance-on, ...).
	Verb string
	// Precondition is the resourceVersion a write sent as its precondition; "" for none.
	Precondition string
	// Code is the HTTP status code a write was answered with; 0 when it got no answer.
	Code int
	// Err is the error a write or admin call returned; "" for none.
	Err string
	// AuditID is the apiserver's audit ID of a write (its Audit-Id response header); for
	// KindLeading the audit ID of the Lease write that made the process leader, if known.
	AuditID string
	// Broker is the broker an admin call addressed.
	Broker string
	// Source says how a KindDelete was learned.
	Source DeleteSource
	// Start and End bound the operation. A read starts before it looks; a write ends once
	// its answer (or error) is back.
	Start, End int64
}

// Succeeded reports whether a write was answered with a 2xx status.
func (e *Event) Succeeded() bool { return e.Code >= 200 && e.Code <= 299 }

// History is everything one process recorded, in the order of Start (ties by Worker, then
// Seq).
type History struct {
	// Process names the process (unique within a run, e.g. "operator-0/1" for the first
	// replica's second start).
	Process string
	// Anchor is the wall-clock time at which the process's monotonic time 0 was taken.
	Anchor time.Time
	Events []Event
	// Unreadable counts what the history's recorder could not record: lines of the process's
	// trace its reader could not parse.
	Unreadable int
}

// At converts an event time to wall-clock time, for reports.
func (h *History) At(t int64) time.Time { return h.Anchor.Add(time.Duration(t)) }
