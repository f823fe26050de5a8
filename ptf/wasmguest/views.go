package wasmguest

import (
	"errors"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
)

// view is a list or map view of the current key, opened in the engine
// (handle): every operation is one host callback.
type view struct {
	h      *guestHost
	handle int
}

// do sends op with the view's handle and what args appends, and returns
// the answer for read to decode; the answer ends with the operation's
// error.
func (v *view) do(op byte, args func(e *wire.Encoder), read func(d *wire.Decoder)) error {
	if v.handle < 0 {
		return errors.New("the view could not be opened")
	}
	e := &v.h.req
	e.B = e.B[:0]
	e.Byte(op)
	e.Uvarint(uint64(v.handle))
	if args != nil {
		args(e)
	}
	d, err := v.h.callback()
	if err != nil {
		return err
	}
	if read != nil {
		read(d)
	}
	err = d.Error()
	return errors.Join(err, d.Err())
}

// listView implements ptf.ListHost.
type listView struct{ *view }

func (v listView) Len() (n int, err error) {
	err = v.do(wire.HostListLen, nil, func(d *wire.Decoder) { n = d.Int() })
	return n, err
}

func (v listView) Get(i int) (b []byte, err error) {
	err = v.do(wire.HostListGet, func(e *wire.Encoder) { e.Int(i) }, func(d *wire.Decoder) { b = d.Bytes() })
	return b, err
}

func (v listView) Append(b []byte) error {
	return v.do(wire.HostListAppend, func(e *wire.Encoder) { e.Bytes(b) }, nil)
}

func (v listView) Set(i int, b []byte) error {
	return v.do(wire.HostListSet, func(e *wire.Encoder) { e.Int(i); e.Bytes(b) }, nil)
}

func (v listView) RemoveFirst(n int) error {
	return v.do(wire.HostListRemove, func(e *wire.Encoder) { e.Int(n) }, nil)
}

func (v listView) Clear() error { return v.do(wire.HostListClear, nil, nil) }

// mapView implements ptf.MapHost.
type mapView struct{ *view }

func (v mapView) Get(key []byte) (b []byte, found bool, err error) {
	err = v.do(wire.HostMapGet, func(e *wire.Encoder) { e.Bytes(key) }, func(d *wire.Decoder) {
		found, b = d.Bool(), d.Bytes()
	})
	return b, found, err
}

func (v mapView) Put(key, val []byte) error {
	return v.do(wire.HostMapPut, func(e *wire.Encoder) { e.Bytes(key); e.Bytes(val) }, nil)
}

func (v mapView) Delete(key []byte) error {
	return v.do(wire.HostMapDelete, func(e *wire.Encoder) { e.Bytes(key) }, nil)
}

// Range fetches every live entry in one callback, then calls f.
func (v mapView) Range(f func(key, val []byte) bool) error {
	var entries [][2][]byte
	err := v.do(wire.HostMapRange, nil, func(d *wire.Decoder) {
		n := d.Count()
		for i := 0; i < n && d.Err() == nil; i++ {
			entries = append(entries, [2][]byte{d.Bytes(), d.Bytes()})
		}
	})
	if err != nil {
		return err
	}
	for _, kv := range entries {
		if !f(kv[0], kv[1]) {
			break
		}
	}
	return nil
}

func (v mapView) Clear() error { return v.do(wire.HostMapClear, nil, nil) }
