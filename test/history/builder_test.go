package history_test

import (
	"github.com/broker-operator/broker-operator/test/history"
)

var (
	bcKey  = history.Key{Resource: "brokerclusters", Namespace: "ns", Name: "bc-1"}
	stsKey = history.Key{Resource: "statefulsets", Namespace: "ns", Name: "bc-1"}
	lease  = history.Key{Resource: "leases", Namespace: "ns", Name: "broker-operator"}
)

// builder makes a History by hand, one event per call, times in nanoseconds.
type builder struct {
	h   *history.History
	seq uint64
}

func newHistory(process string) *builder { return &builder{h: &history.History{Process: process}} }

func (b *builder) add(e history.Event) *builder {
	b.seq++
	e.Seq = b.seq
	b.h.Events = append(b.h.Events, e)
	return b
}

// read records a read by worker in reconcile rec; rv "" means not found.
func (b *builder) read(worker int, rec uint64, key history.Key, uid, rv string, start, end int64) *builder {
	return b.add(history.Event{Kind: history.KindRead, Worker: worker, Reconcile: rec, Key: key, UID: uid, RV: rv, Found: rv != "", Start: start, End: end})
}

// write records a write answered with code; rv and uid are the answer's.
func (b *builder) write(worker int, rec uint64, key history.Key, verb, pre, uid, rv string, code int, start, end int64) *builder {
	return b.add(history.Event{Kind: history.KindWrite, Worker: worker, Reconcile: rec, Key: key, Verb: verb, Precondition: pre,
		UID: uid, RV: rv, Code: code, Start: start, End: end})
}

func (b *builder) audited(auditID string) *builder {
	b.h.Events[len(b.h.Events)-1].AuditID = auditID
	return b
}

func (b *builder) gone(source history.DeleteSource, key history.Key, uid, rv string, start, end int64) *builder {
	return b.add(history.Event{Kind: history.KindDelete, Worker: history.WorkerInformers, Source: source, Key: key, UID: uid, RV: rv, Start: start, End: end})
}

func (b *builder) admin(worker int, rec uint64, key history.Key, call, broker string, start, end int64) *builder {
	return b.add(history.Event{Kind: history.KindAdmin, Worker: worker, Reconcile: rec, Key: key, Verb: call, Broker: broker, Start: start, End: end})
}

// failed sets the last event's error.
func (b *builder) failed(err string) *builder {
	b.h.Events[len(b.h.Events)-1].Err = err
	return b
}

// fresh is a reconcile rec of worker that writes key at rv in [start, start+2], reads it back
// at rv in [start+3, start+4] (a read ReadYourWrites judges), then calls call for broker in
// [start+5, start+6].
func (b *builder) fresh(worker int, rec uint64, key history.Key, rv, call, broker string, start int64) *builder {
	return b.write(worker, rec, key, "patch", "", uidOf(key), rv, 200, start, start+2).
		read(worker, rec, key, uidOf(key), rv, start+3, start+4).
		admin(worker, rec, key, call, broker, start+5, start+6)
}

// uidOf is the UID of key's object in fresh: one per key, as RealUIDs requires; bcKey's is
// "u1", as elsewhere.
func uidOf(key history.Key) string {
	if key == bcKey {
		return "u1"
	}
	return "u-" + key.Name
}

func (b *builder) leading(auditID string, at int64) *builder {
	return b.add(history.Event{Kind: history.KindLeading, Worker: history.WorkerElection, Key: lease, AuditID: auditID, Start: at, End: at})
}

func check(hs ...*builder) *history.Report { return checkWith(history.Input{}, hs...) }

// checkWith checks the histories with in's other fields.
func checkWith(in history.Input, hs ...*builder) *history.Report {
	for _, b := range hs {
		in.Histories = append(in.Histories, b.h)
	}
	return history.Check(in)
}
