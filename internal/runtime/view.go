package runtime

import (
	"errors"

	"github.com/eddy-sql/eddy/internal/state"
)

// view binds a list or map state entry of one key to the backend, so a
// function reads and writes it element by element.
type view struct {
	kv   state.Backend
	ns   string
	name string
	key  []byte
}

// listView implements ptf.ListHost.
type listView struct{ *view }

func (v listView) Len() (int, error)         { return v.kv.ListLen(v.ns, v.name, v.key) }
func (v listView) Get(i int) ([]byte, error) { return v.kv.ListGet(v.ns, v.name, v.key, i) }
func (v listView) Append(b []byte) error     { return v.kv.ListAppend(v.ns, v.name, v.key, b) }
func (v listView) Set(i int, b []byte) error { return v.kv.ListSet(v.ns, v.name, v.key, i, b) }
func (v listView) RemoveFirst(n int) error   { return v.kv.ListRemoveFirst(v.ns, v.name, v.key, n) }
func (v listView) Clear() error              { return v.kv.ListClear(v.ns, v.name, v.key) }

// mapView implements ptf.MapHost.
type mapView struct{ *view }

func (v mapView) Get(k []byte) ([]byte, bool, error) { return v.kv.MapGet(v.ns, v.name, v.key, k) }
func (v mapView) Put(k, b []byte) error              { return v.kv.MapPut(v.ns, v.name, v.key, k, b) }
func (v mapView) Delete(k []byte) error              { return v.kv.MapDelete(v.ns, v.name, v.key, k) }
func (v mapView) Clear() error                       { return v.kv.MapClear(v.ns, v.name, v.key) }

var errStop = errors.New("stop")

func (v mapView) Range(f func(k, b []byte) bool) error {
	err := v.kv.MapRange(v.ns, v.name, v.key, func(k, b []byte) error {
		if !f(k, b) {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}
