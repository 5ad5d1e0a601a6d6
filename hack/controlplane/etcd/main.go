// Command etcd runs the etcd server from go.etcd.io/etcd/server/v3, so the local control plane
// needs nothing beyond the Go module proxy.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
