package runtime

import (
	"encoding/binary"
	"errors"

	"github.com/eddy-sql/eddy/internal/state"
)

// view binds a list or map state entry of one key to the backend, so a
// function reads and writes it element by element. With a TTL every
// element carries its write time (8 bytes, big endian, before the value)
// and expires on its own: expired list elements are removed from the head
// of the list when the view is opened (lists are appended in time order;
// an element refreshed with Set in the middle outlives older ones before
// it only until they are purged), expired map entries read as absent.
type view struct {
	kv   state.Backend
	ns   string
	name string
	key  []byte
	ttl  int64
	now  func() int64
}

func (v *view) wrap(b []byte) []byte {
	if v.ttl <= 0 {
		return b
	}
	out := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(b)), uint64(v.now()))
	return append(out, b...)
}

// unwrap returns the value of a stored element and whether it is alive.
func (v *view) unwrap(b []byte) ([]byte, bool) {
	if v.ttl <= 0 {
		return b, true
	}
	if len(b) < 8 {
		return nil, false
	}
	w := int64(binary.BigEndian.Uint64(b))
	return b[8:], v.now()-w < v.ttl
}

// listView implements ptf.ListHost.
type listView struct{ *view }

// purge removes expired elements from the head of the list.
func (v listView) purge() error {
	n, err := v.kv.ListLen(v.ns, v.name, v.key)
	if err != nil {
		return err
	}
	dead := 0
	for ; dead < n; dead++ {
		b, err := v.kv.ListGet(v.ns, v.name, v.key, dead)
		if err != nil {
			return err
		}
		if _, ok := v.unwrap(b); ok {
			break
		}
	}
	if dead == 0 {
		return nil
	}
	return v.kv.ListRemoveFirst(v.ns, v.name, v.key, dead)
}

func (v listView) Len() (int, error) { return v.kv.ListLen(v.ns, v.name, v.key) }

func (v listView) Get(i int) ([]byte, error) {
	b, err := v.kv.ListGet(v.ns, v.name, v.key, i)
	if err != nil {
		return nil, err
	}
	b, _ = v.unwrap(b)
	return b, nil
}

func (v listView) Append(b []byte) error     { return v.kv.ListAppend(v.ns, v.name, v.key, v.wrap(b)) }
func (v listView) Set(i int, b []byte) error { return v.kv.ListSet(v.ns, v.name, v.key, i, v.wrap(b)) }
func (v listView) RemoveFirst(n int) error   { return v.kv.ListRemoveFirst(v.ns, v.name, v.key, n) }
func (v listView) Clear() error              { return v.kv.ListClear(v.ns, v.name, v.key) }

// mapView implements ptf.MapHost.
type mapView struct{ *view }

func (v mapView) Get(k []byte) ([]byte, bool, error) {
	b, ok, err := v.kv.MapGet(v.ns, v.name, v.key, k)
	if err != nil || !ok {
		return nil, false, err
	}
	b, alive := v.unwrap(b)
	return b, alive, nil
}

func (v mapView) Put(k, b []byte) error { return v.kv.MapPut(v.ns, v.name, v.key, k, v.wrap(b)) }
func (v mapView) Delete(k []byte) error { return v.kv.MapDelete(v.ns, v.name, v.key, k) }
func (v mapView) Clear() error          { return v.kv.MapClear(v.ns, v.name, v.key) }

var errStop = errors.New("stop")

func (v mapView) Range(f func(k, b []byte) bool) error {
	err := v.kv.MapRange(v.ns, v.name, v.key, func(k, b []byte) error {
		b, alive := v.unwrap(b)
		if !alive {
			return nil
		}
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
