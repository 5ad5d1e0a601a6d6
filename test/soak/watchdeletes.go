package soak

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/broker-operator/broker-operator/test/history"
)

// deletesBody passes a JSON watch stream of one resource through, and calls observed for each
// DELETED event as it is handed on: no later than the reader's informer drops the object. The
// apiserver writes one event per line.
type deletesBody struct {
	src      io.ReadCloser
	resource string
	observed func(key history.Key, uid, rv string)
	partial  []byte // the start of an event whose end has not come yet
}

// deletedMark is how a deletion's event begins (metav1.WatchEvent: type, then object).
var deletedMark = []byte(`{"type":"DELETED"`)

func (b *deletesBody) Read(buf []byte) (int, error) {
	n, err := b.src.Read(buf)
	data := buf[:n]
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		if !complete {
			b.partial = append(b.partial, line...)
			break
		}
		if len(b.partial) > 0 {
			line = append(b.partial, line...)
			b.partial = b.partial[:0]
		}
		b.scan(line)
		data = rest
	}
	return n, err
}

func (b *deletesBody) scan(event []byte) {
	if !bytes.HasPrefix(event, deletedMark) {
		return
	}
	var ev struct {
		Object struct {
			Metadata struct {
				Name            string `json:"name"`
				Namespace       string `json:"namespace"`
				UID             string `json:"uid"`
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if json.Unmarshal(event, &ev) != nil || ev.Object.Metadata.Name == "" {
		return
	}
	m := ev.Object.Metadata
	b.observed(history.Key{Resource: b.resource, Namespace: m.Namespace, Name: m.Name}, m.UID, m.ResourceVersion)
}

func (b *deletesBody) Close() error { return b.src.Close() }
