package writeback

// entryList is a doubly linked list of entries, through the pair of links in each entry that
// L picks: an entry can be in the aging list and in the pending queue at once. Writers only.
type entryList[L linksOf] struct {
	first, last *entry
}

// entryLinks is an entry's place in one entryList.
type entryLinks struct{ prev, next *entry }

// linksOf picks which of an entry's links a list uses.
type linksOf interface{ of(*entry) *entryLinks }

// agingLinks and queueLinks pick the links of the aging list (Overlay.aging) and of the
// pending queue (pendingIndex).
type (
	agingLinks struct{}
	queueLinks struct{}
)

func (agingLinks) of(e *entry) *entryLinks { return &e.aging }
func (queueLinks) of(e *entry) *entryLinks { return &e.queue }

func (l *entryList[L]) links(e *entry) *entryLinks {
	var pick L
	return pick.of(e)
}

// pushBack appends e, which must not be in the list.
func (l *entryList[L]) pushBack(e *entry) {
	*l.links(e) = entryLinks{prev: l.last}
	if l.last != nil {
		l.links(l.last).next = e
	} else {
		l.first = e
	}
	l.last = e
}

// remove unlinks e and reports whether it was in the list.
func (l *entryList[L]) remove(e *entry) bool {
	at := l.links(e)
	if at.prev == nil && at.next == nil && l.first != e {
		return false
	}
	if at.prev != nil {
		l.links(at.prev).next = at.next
	} else {
		l.first = at.next
	}
	if at.next != nil {
		l.links(at.next).prev = at.prev
	} else {
		l.last = at.prev
	}
	*at = entryLinks{}
	return true
}
