package race

import (
	"context"
	"net/http"

	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// historyWrite is a write on its way, to be recorded in a history once its answer is back.
type historyWrite struct {
	ctx   context.Context
	event history.Event
}

// startHistoryWrite begins recording a write (harness.WriteEvent), timed from now.
func (r *Recorder) startHistoryWrite(req *http.Request, info harness.Request) *historyWrite {
	e := harness.WriteEvent(req, info)
	e.Start = r.history.Now()
	return &historyWrite{ctx: req.Context(), event: e}
}

// finish records the write with its answer (harness.Answer), leaving resp.Body readable, and
// the delete, when its answer says the object is gone (harness.DeletedUID).
func (w *historyWrite) finish(rec *history.Recorder, resp *http.Response, err error) {
	e := w.event
	answer := harness.Answer(&e, resp, err)
	rec.Write(w.ctx, e)
	if uid, gone := harness.DeletedUID(e, answer); gone {
		rec.Gone(w.ctx, e.Key, uid, "", e.Start)
	}
}
