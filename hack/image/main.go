// Command image wraps a static binary into a minimal OCI image, without a container engine and
// without pulling a base image. It writes an OCI image layout as one tar file, with a Docker
// manifest.json beside it, so that `ctr images import`, `docker load`, `podman load` and
// `kind load image-archive` all take it.
//
// The root filesystem holds only what a static Go program run as a non-root user needs: the
// binary, /etc/passwd and /etc/group entries for root and nonroot (65532), an empty /tmp, and,
// when given, a CA bundle at /etc/ssl/certs/ca-certificates.crt.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	var o options
	flag.StringVar(&o.binary, "binary", "", "Static binary to put into the image (required).")
	flag.StringVar(&o.path, "path", "", "Where the binary goes in the image (default /<basename of -binary>).")
	flag.StringVar(&o.ref, "name", "", "Image name with tag, e.g. localhost/broker-operator:dev (required).")
	flag.StringVar(&o.out, "out", "", "Output tar file (required).")
	flag.StringVar(&o.caBundle, "ca-certs", "", "CA bundle to install as /etc/ssl/certs/ca-certificates.crt (optional).")
	flag.IntVar(&o.uid, "uid", 65532, "User and group ID the image runs as.")
	flag.StringVar(&o.created, "created", "", "Creation time, RFC 3339 (default: the Unix epoch, for reproducible images).")
	flag.Var(&o.labels, "label", "Image label key=value; repeat for several.")
	flag.Var(&o.args, "arg", "Default argument (CMD); repeat for several.")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.binary == "" || o.ref == "" || o.out == "" {
		return fmt.Errorf("-binary, -name and -out are required")
	}
	created := time.Unix(0, 0).UTC()
	if o.created != "" {
		t, err := time.Parse(time.RFC3339, o.created)
		if err != nil {
			return fmt.Errorf("-created: %w", err)
		}
		created = t
	}
	img, err := build(o, created)
	if err != nil {
		return err
	}
	if err := writeArchive(img, o.ref, o.out); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s -> %s\n", o.ref, digest, o.out)
	return nil
}

type options struct {
	binary, path, ref, out, caBundle, created string
	uid                                       int
	labels, args                              repeated
}

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }
