package writeback

import "errors"

// ErrReadOnly is returned by the Store methods that would change the overlay: only the
// informer fills the indexer underneath, and only Record and RecordDelete fill the overlay.
var ErrReadOnly = errors.New("writeback: the overlay is a read-only view; record writes with Record or RecordDelete")

// Add is refused: see ErrReadOnly.
func (o *Overlay) Add(interface{}) error { return ErrReadOnly }

// Update is refused: see ErrReadOnly.
func (o *Overlay) Update(interface{}) error { return ErrReadOnly }

// Delete is refused: see ErrReadOnly.
func (o *Overlay) Delete(interface{}) error { return ErrReadOnly }

// Replace is refused: see ErrReadOnly.
func (o *Overlay) Replace([]interface{}, string) error { return ErrReadOnly }

// Resync does nothing; it has no meaning for a read view.
func (o *Overlay) Resync() error { return nil }

// LastStoreSyncResourceVersion is the informer store's.
func (o *Overlay) LastStoreSyncResourceVersion() string {
	return o.inner.LastStoreSyncResourceVersion()
}

// Bookmark is ignored: bookmarks belong to the informer's store.
func (o *Overlay) Bookmark(string) {}
