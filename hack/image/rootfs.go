package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"
)

// rootfs returns the image's single layer as an uncompressed tar: the directories, the user
// database, the optional CA bundle and the binary, all owned by root and dated at created.
func rootfs(o options, created time.Time) ([]byte, error) {
	binary, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, err
	}
	entries := []entry{
		{name: "etc/", mode: 0o755},
		{name: "etc/passwd", mode: 0o644, data: fmt.Appendf(nil,
			"root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", o.uid, o.uid)},
		{name: "etc/group", mode: 0o644, data: fmt.Appendf(nil, "root:x:0:\nnonroot:x:%d:\n", o.uid)},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: o.uid},
		{name: "tmp/", mode: 0o1777},
	}
	if o.caBundle != "" {
		ca, err := os.ReadFile(o.caBundle)
		if err != nil {
			return nil, fmt.Errorf("-ca-certs: %w", err)
		}
		entries = append(entries,
			entry{name: "etc/ssl/", mode: 0o755},
			entry{name: "etc/ssl/certs/", mode: 0o755},
			entry{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: ca})
	}
	target := o.binaryPath()
	for dir := path.Dir(target); dir != "/"; dir = path.Dir(dir) {
		entries = append(entries, entry{name: dir[1:] + "/", mode: 0o755})
	}
	entries = append(entries, entry{name: target[1:], mode: 0o755, data: binary})

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.name] {
			continue
		}
		seen[e.name] = true
		hdr := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: created, Format: tar.FormatPAX}
		if e.name[len(e.name)-1] == '/' {
			hdr.Typeflag = tar.TypeDir
		} else {
			hdr.Typeflag = tar.TypeReg
			hdr.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type entry struct {
	name string // relative; directories end in "/"
	mode int64
	uid  int
	data []byte
}

// binaryPath is the absolute path of the binary inside the image.
func (o options) binaryPath() string {
	if o.path != "" {
		return path.Clean("/" + o.path)
	}
	return "/" + filepath.Base(o.binary)
}
