package runtime

import (
	"fmt"
)

// keyedCache is a write-back cache of one value state entry (name) per
// key, for the operators whose per-key state is one record: a key is read
// from the KV the first time it is needed, changes stay in memory, and
// flush writes the keys marked dirty (deleting the empty ones). Past
// maxKeys cached keys, flush evicts clean keys down to half; an evicted
// key is read back when it returns.
type keyedCache[E any] struct {
	ns, name string
	kv       KV
	maxKeys  int
	codec    cacheCodec[E]
	m        map[string]*cached[E]
	dirty    []*cached[E]
	slab     []cached[E]
	buf      []byte
}

// cached is one key's state in a keyedCache.
type cached[E any] struct {
	key   string
	dirty bool
	v     E
}

// cacheCodec encodes the state of a key.
type cacheCodec[E any] interface {
	// encode appends the state to dst.
	encode(dst []byte, e *E) []byte
	// decode fills e (zero) from b.
	decode(b []byte, e *E) error
	// empty reports whether the state is empty: it is then deleted.
	empty(e *E) bool
}

// cacheSlab is the number of cache entries allocated at once.
const cacheSlab = 64

func newKeyedCache[E any](oc OpContext, name string, codec cacheCodec[E]) *keyedCache[E] {
	return &keyedCache[E]{ns: oc.NS, name: name, kv: oc.KV, maxKeys: oc.MaxKeys, codec: codec, m: map[string]*cached[E]{}}
}

// get returns the state of key, read from the KV if it is not cached (a
// zero E when the KV has none).
func (c *keyedCache[E]) get(key []byte) (*cached[E], error) {
	if e := c.m[string(key)]; e != nil {
		return e, nil
	}
	return c.load(string(key))
}

// getString is get for a key held as a string.
func (c *keyedCache[E]) getString(key string) (*cached[E], error) {
	if e := c.m[key]; e != nil {
		return e, nil
	}
	return c.load(key)
}

func (c *keyedCache[E]) load(key string) (*cached[E], error) {
	if len(c.slab) == 0 {
		c.slab = make([]cached[E], cacheSlab)
	}
	e := &c.slab[0]
	c.slab = c.slab[1:]
	e.key = key
	b, ok, err := c.kv.Get(c.ns, c.name, []byte(key))
	if err != nil {
		return nil, fmt.Errorf("reading state: %w", err)
	}
	if ok {
		if err := c.codec.decode(b, &e.v); err != nil {
			return nil, fmt.Errorf("decoding state: %w", err)
		}
	}
	c.m[key] = e
	return e, nil
}

// mark records that e changed: flush writes it.
func (c *keyedCache[E]) mark(e *cached[E]) {
	if !e.dirty {
		e.dirty = true
		c.dirty = append(c.dirty, e)
	}
}

// flush writes the dirty keys and evicts clean keys past maxKeys.
func (c *keyedCache[E]) flush() error {
	for _, e := range c.dirty {
		e.dirty = false
		if c.codec.empty(&e.v) {
			if err := c.kv.Delete(c.ns, c.name, []byte(e.key)); err != nil {
				return fmt.Errorf("writing state: %w", err)
			}
			delete(c.m, e.key) // nothing to keep in memory either
			continue
		}
		c.buf = c.codec.encode(c.buf[:0], &e.v)
		if err := c.kv.Put(c.ns, c.name, []byte(e.key), c.buf); err != nil {
			return fmt.Errorf("writing state: %w", err)
		}
	}
	clear(c.dirty)
	c.dirty = c.dirty[:0]
	evictClean(c.m, c.maxKeys)
	return nil
}
