// Package node holds the end-to-end tests of the operator as users deploy it: its image, built by
// make image, runs as two real Pods of deploy/'s Deployment on a real node (test/framework's
// StartRealNode), in a namespace that enforces the restricted Pod Security level. The brokers'
// Pods stay on the fake kwok Node and their admin API is the simulator's, which listens on the
// node address where the operator's Pods reach it.
//
// The tests have the e2e build tag and must run in a network namespace of their own:
//
//	go test -tags e2e -exec 'unshare --net --' ./test/node/
//
// Where the node cannot start (not root, no cgroups, not in a namespace of its own) every test
// skips and says why. make e2e runs them this way after the other e2e packages.
package node
