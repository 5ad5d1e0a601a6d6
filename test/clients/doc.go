// Package clients holds the end-to-end tests (build tag e2e) of pkg/writeback's dynamic and
// metadata paths against a real kube-apiserver from test/framework: the overlays of NewDynamic
// and NewMetadata, written through WrapDynamic, WrapMetadata and a typed client, read at once
// through dynamiclister and metadatalister while the watch is delayed.
package clients
