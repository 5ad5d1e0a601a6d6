package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// build assembles the image: one layer, and a config that runs the binary as the non-root user.
func build(o options, created time.Time) (v1.Image, error) {
	layerTar, err := rootfs(o, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	labels := map[string]string{}
	for _, l := range o.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-label %q: want key=value", l)
		}
		labels[k] = v
	}
	user := strconv.Itoa(o.uid) + ":" + strconv.Itoa(o.uid)
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: v1.Time{Time: created}, CreatedBy: "hack/image: " + o.binaryPath() + ", /etc/passwd, /etc/group"},
	})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS = "linux"
	cfg.Architecture = runtime.GOARCH
	cfg.Created = v1.Time{Time: created}
	cfg.Config = v1.Config{
		User:       user,
		Entrypoint: []string{o.binaryPath()},
		Cmd:        o.args,
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		WorkingDir: "/",
		Labels:     labels,
	}
	if o.caBundle == "" {
		cfg.Config.Env = cfg.Config.Env[:1]
	}
	return mutate.ConfigFile(img, cfg)
}
