// Package writebacktest has test tools for code that reads from informers over client-go's
// fake clientsets.
//
//   - Watches (RecordWatches, or Reactor around a reactor of the test's own) records the
//     watches a fake clientset opens, and Await waits until an informer's watch is registered
//     with the tracker. Await it after cache.WaitForCacheSync and before the test writes: the
//     fake loses for good a delete made between an informer's List and its Watch
//     (kubernetes/kubernetes#141528), and the informer then shows the deleted object for ever.
//   - StampServerFields makes the fake assign resourceVersions and UIDs the way an apiserver
//     does. A write the tracker refuses (AlreadyExists, NotFound, Conflict) uses up no
//     resourceVersion, so a list is never ahead of every event. Each write waits until every
//     watch it serves has room for the write's event: the fake's watches hold 100 events and
//     the fake panics ("channel full") when a write finds one full, which a few concurrent
//     writers and a reader that is not scheduled for a moment are enough to cause.
//   - Holder holds watches back under the test's control; NewDelayingWatch delays each event
//     by a random amount. Over a fake, serve them through WatchReactor with the tracker that
//     StampServerFields returns, so that writers wait for a watch that lags rather than panic.
package writebacktest
