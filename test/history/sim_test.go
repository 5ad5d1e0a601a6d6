package history_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/broker-operator/broker-operator/test/history"
)

// simulate builds the history of two workers sharing one correct cache of one key: each
// operation starts 10 ns after the one before and lasts 15 ns, so neighbours overlap; a write
// is applied 1 ns before its end, and a read returns the state at its start. One operation in
// ten deletes the object and the next write re-creates it with a new UID.
func simulate(seed uint64, ops int) *builder {
	rng := rand.New(rand.NewPCG(seed, 0))
	type state struct {
		at      int64
		uid, rv string
	}
	var applied []state // in the order applied
	stateAt := func(t int64) state {
		s := state{}
		for _, a := range applied {
			if a.at <= t {
				s = a
			}
		}
		return s
	}
	b := newHistory("operator-0")
	rv, gen := 1, 1
	uid := "u1"
	for i := range ops {
		start, end := int64(10*i), int64(10*i+15)
		worker, rec := 1+rng.IntN(2), uint64(i+1)
		switch op := rng.IntN(10); {
		case op < 5:
			s := stateAt(start)
			b.read(worker, rec, stsKey, s.uid, s.rv, start, end)
		case op < 9:
			rv++
			if uid == "" {
				gen++
				uid = "u" + strconv.Itoa(gen)
			}
			applied = append(applied, state{end - 1, uid, strconv.Itoa(rv)})
			b.write(worker, rec, stsKey, "update", "", uid, strconv.Itoa(rv), 200, start, end)
		case uid != "":
			rv++
			applied = append(applied, state{at: end - 1})
			b.write(worker, rec, stsKey, "delete", "", "", "", 200, start, end)
			b.gone(history.DeleteMade, stsKey, uid, "", start, end)
			uid = ""
		}
	}
	return b
}

func TestCleanConcurrentHistoriesPass(t *testing.T) {
	for seed := range uint64(20) {
		r := check(simulate(seed, 400))
		if len(r.Violations) > 0 {
			t.Fatalf("seed %d: %s\n%s", seed, r.Summary(), r.Violations[0])
		}
		if r.Judged[history.ReadYourWrites] == 0 || r.Judged[history.MonotonicReads] == 0 || r.Judged[history.NoResurrection] == 0 {
			t.Fatalf("seed %d judged too little: %s", seed, r.Summary())
		}
	}
}

func TestAnOlderReadPlantedInACleanHistoryIsCaught(t *testing.T) {
	for seed := range uint64(20) {
		b := simulate(seed, 400)
		// The last read that found the object, now returning the first version ever written.
		for i := len(b.h.Events) - 1; i >= 0; i-- {
			if e := &b.h.Events[i]; e.Kind == history.KindRead && e.Found && e.RV != "2" {
				e.RV = "2"
				break
			}
		}
		if r := check(b); len(r.Violations) == 0 {
			t.Errorf("seed %d: the planted read was not caught: %s", seed, r.Summary())
		}
	}
}
