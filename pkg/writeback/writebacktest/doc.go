// Package writebacktest has test tools for code that reads from informers: watches that lag
// behind writes under the test's control (Holder) or by random delays (NewDelayingWatch), and
// StampServerFields, which makes the generated fake clientset assign resourceVersions and
// UIDs the way an apiserver does.
package writebacktest
