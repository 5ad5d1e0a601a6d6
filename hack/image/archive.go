package main

import (
	"archive/tar"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// writeArchive writes img as an OCI image layout in one tar file. index.json names the image in
// both annotations importers read (containerd's full name, and the OCI ref name); manifest.json
// repeats it the way `docker save` does, for tools that only know that format.
func writeArchive(img v1.Image, ref, out string) error {
	tag, err := name.NewTag(ref, name.WithDefaultRegistry(""))
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(filepath.Dir(out), ".image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	annotations := map[string]string{
		"io.containerd.image.name":          ref,
		"org.opencontainers.image.ref.name": tag.TagStr(),
	}
	if err := p.AppendImage(img, layout.WithAnnotations(annotations)); err != nil {
		return err
	}
	if err := writeDockerManifest(img, ref, dir); err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := tarDir(dir, tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, out)
}

func writeDockerManifest(img v1.Image, ref, dir string) error {
	cfg, err := img.ConfigName()
	if err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	entry := struct {
		Config   string
		RepoTags []string
		Layers   []string
	}{Config: blobPath(cfg), RepoTags: []string{ref}}
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return err
		}
		entry.Layers = append(entry.Layers, blobPath(d))
	}
	data, err := json.Marshal([]any{entry})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o644)
}

func blobPath(d v1.Hash) string { return "blobs/" + d.Algorithm + "/" + d.Hex }

// tarDir writes dir's contents to a tar file in lexical order with fixed times, so the same image
// gives the same bytes.
func tarDir(dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, dir+string(filepath.Separator)))
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: rel, Mode: 0o644, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if d.IsDir() {
			hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, rel+"/", 0o755
			return tw.WriteHeader(hdr)
		}
		hdr.Typeflag, hdr.Size = tar.TypeReg, info.Size()
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}
