package soak

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// ProcessHistory builds the history (test/history) of one operator process from outside it:
// its writes, the deletions its watch streams delivered and the leadership its Lease writes
// show, as its Proxy sees them, and its reads and irreversible calls from its log (ParseTrace).
// The proxy's times are read from the test's monotonic clock (Now); the log's from the system's
// monotonic clock (controller.TraceNow), which is the same clock with another zero: Traced
// shifts them by the difference, read once. It is safe for concurrent use.
type ProcessHistory struct {
	rec        *history.Recorder
	lease      history.Key
	leading    atomic.Bool
	unreadable atomic.Int64
	// shift is what takes a time of controller.TraceNow's clock to the recorder's.
	shift int64
}

// NewProcessHistory returns an empty history of the process named process, whose leader
// election holds lease.
func NewProcessHistory(process string, lease history.Key) *ProcessHistory {
	rec := history.NewRecorder(process)
	traced := controller.TraceNow()
	return &ProcessHistory{rec: rec, lease: lease, shift: rec.Now() - traced}
}

// Now is the current time on the history's clock, for a write's Start and End.
func (p *ProcessHistory) Now() int64 { return p.rec.Now() }

// Wrote records a write the proxy forwarded, with its answer's body (harness.Answer). A delete
// whose answer says the object is gone (harness.DeletedUID) is a delete the process made. The
// first successful write of the Lease that names a holder made the process the leader: it
// renews the Lease only while it holds it, and exits once it lost it.
func (p *ProcessHistory) Wrote(e history.Event, answer []byte) {
	p.rec.Write(context.Background(), e)
	if uid, gone := harness.DeletedUID(e, answer); gone {
		p.rec.Gone(context.Background(), e.Key, uid, "", e.Start)
		return
	}
	if !e.Succeeded() || e.Key != p.lease || len(answer) == 0 {
		return
	}
	var a struct {
		Spec struct {
			HolderIdentity string `json:"holderIdentity"`
		} `json:"spec"`
	}
	if json.Unmarshal(answer, &a) == nil && a.Spec.HolderIdentity != "" && p.leading.CompareAndSwap(false, true) {
		p.rec.Leading(p.lease, e.AuditID)
	}
}

// Observed records that a watch stream of the process delivered the deletion of key, whose last
// state had UID uid and resourceVersion rv.
func (p *ProcessHistory) Observed(key history.Key, uid, rv string) {
	p.rec.Deleted(key.Resource, key.Namespace, key.Name, types.UID(uid), rv)
}

// Traced records a read or an admin call the process logged (ParseTrace), in its worker's log.
func (p *ProcessHistory) Traced(e history.Event) {
	e.Start, e.End = e.Start+p.shift, e.End+p.shift
	p.rec.Log(e.Worker).Append(e)
}

// Unreadable counts a line of the process's trace (a "Traced ..." line of its log) that
// ParseTrace could not parse; the checker fails a run with any (history.GapUnreadable).
func (p *ProcessHistory) Unreadable() { p.unreadable.Add(1) }

// History returns everything recorded so far; call it once the process has exited and its
// log has been read.
func (p *ProcessHistory) History() *history.History {
	h := p.rec.History()
	h.Unreadable = int(p.unreadable.Load())
	return h
}
