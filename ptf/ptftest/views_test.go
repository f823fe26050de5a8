package ptftest_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// viewDef keeps a list view "events" and a map view "counts" per key.
// Steps: add:X appends X, set:I:X replaces element I, drop:N removes the
// first N, put:K increments counts[K], del:K deletes K, clear-list clears
// the list now, clear-state:NAME clears an entry at the end of the call,
// emit emits the list and the map.
func viewDef(opts ...ptf.StateOption) (*ptf.Definition, *ptf.List[string], *ptf.Map[string, int64]) {
	list := ptf.NewList[string]("events", opts...)
	counts := ptf.NewMap[string, int64]("counts", opts...)
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<events STRING, counts STRING>",
		State:  []ptf.StateEntry{list, counts},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			l, m := list.Get(ctx), counts.Get(ctx)
			for _, op := range ops(in) {
				parts := strings.Split(op, ":")
				switch parts[0] {
				case "add":
					l.Add(parts[1])
				case "set":
					i, _ := strconv.Atoi(parts[1])
					l.Set(i, parts[2])
				case "drop":
					n, _ := strconv.Atoi(parts[1])
					l.RemoveFirst(n)
				case "clear-list":
					l.Clear()
				case "put":
					n, _ := m.Get(parts[1])
					m.Put(parts[1], n+1)
				case "del":
					m.Delete(parts[1])
				case "clear-state":
					ctx.ClearState(parts[1])
				case "emit":
					var kv []string
					m.Range(func(k string, n int64) bool {
						kv = append(kv, fmt.Sprintf("%s=%d", k, n))
						return true
					})
					ctx.Collect(types.NewString(strings.Join(l.All(), ",")), types.NewString(strings.Join(kv, ",")))
				}
			}
			return nil
		},
	}
	return def, list, counts
}

// TestListAndMapViews: views are read and written element by element and
// keep their contents per key between calls.
func TestListAndMapViews(t *testing.T) {
	def, _, _ := viewDef()
	h := newOps(t, def)
	for _, step := range []struct {
		key, op, want string
	}{
		{"a", "add:x add:y emit", "+I[a, x,y, ]"},
		{"a", "put:p put:q put:p emit", "+I[a, x,y, p=2,q=1]"},
		{"b", "add:z put:p emit", "+I[b, z, p=1]"},
		{"a", "set:1:Y emit", "+I[a, x,Y, p=2,q=1]"},
		{"a", "drop:1 del:p emit", "+I[a, Y, q=1]"},
		{"a", "del:nope drop:5 emit", "+I[a, , q=1]"},
		{"a", "add:u add:v clear-list add:w emit", "+I[a, w, q=1]"},
		// ClearState acts when the call returns, and takes the elements
		// added in the same call with it.
		{"a", "add:s clear-state:events put:r emit", "+I[a, w,s, q=1,r=1]"},
		{"a", "emit", "+I[a, , q=1,r=1]"},
		{"a", "clear-state:counts put:t emit", "+I[a, , q=1,r=1,t=1]"},
		{"a", "emit", "+I[a, , ]"},
		{"b", "emit", "+I[b, z, p=1]"},
	} {
		require.NoError(t, send(h, step.key, step.op, t0), step.op)
		require.Equal(t, rows(step.want), take(h), step.op)
	}
}

// TestMapRangeOrder: Range visits entries in the order of their encoded
// keys (for strings, byte order) and stops when f returns false.
func TestMapRangeOrder(t *testing.T) {
	m := ptf.NewMap[string, int]("m")
	var got []string
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "INT",
		State:  []ptf.StateEntry{m},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			v := m.Get(ctx)
			for i, k := range ops(in) {
				v.Put(k, i)
			}
			got = nil
			v.Range(func(k string, _ int) bool {
				got = append(got, k)
				return k != "m"
			})
			return nil
		},
	}
	h := newOps(t, def)
	mustSend(t, h, "a", "z b m a", t0)
	require.Equal(t, []string{"a", "b", "m"}, got)
}

// TestViewsSurviveSnapshot: list and map views are part of a snapshot;
// changes after it are rolled back by a restore.
func TestViewsSurviveSnapshot(t *testing.T) {
	def, _, _ := viewDef()
	h := newOps(t, def)
	mustSend(t, h, "a", "add:x add:y put:p", t0)
	mustSend(t, h, "b", "add:z", t0)
	snap, err := h.Snapshot()
	require.NoError(t, err)
	mustSend(t, h, "a", "add:after drop:1 put:q del:p", t0)
	mustSend(t, h, "b", "clear-state:events", t0)
	require.NoError(t, h.Restore(snap))
	mustSend(t, h, "a", "emit", t0)
	mustSend(t, h, "b", "emit", t0)
	mustSend(t, h, "c", "emit", t0)
	require.Equal(t, rows("+I[a, x,y, p=1]", "+I[b, z, ]", "+I[c, , ]"), take(h))
}

// TestViewsRefuseNulls: list views refuse NULL elements and map views NULL
// keys (Flink: "List views don't support null values.", "Map views don't
// support null keys."); map values may be NULL.
func TestViewsRefuseNulls(t *testing.T) {
	list := ptf.NewList[*string]("l")
	m := ptf.NewMap[*string, *int]("m")
	var gotNil, found bool
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "INT",
		State:  []ptf.StateEntry{list, m},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			k := "k"
			switch in.Row.Get("op").Str() {
			case "list":
				list.Get(ctx).Add(nil)
			case "key":
				m.Get(ctx).Put(nil, nil)
			case "value":
				m.Get(ctx).Put(&k, nil)
				var v *int
				v, found = m.Get(ctx).Get(&k)
				gotNil = v == nil
			}
			return nil
		},
	}
	h := newOps(t, def)
	err := send(h, "a", "list", t0)
	require.ErrorIs(t, err, ptf.ErrNullListElement)
	require.ErrorContains(t, err, "list views don't support null values")
	err = send(h, "a", "key", t0)
	require.ErrorIs(t, err, ptf.ErrNullMapKey)
	require.ErrorContains(t, err, "map views don't support null keys")
	require.NoError(t, send(h, "a", "value", t0))
	require.True(t, found && gotNil, "a NULL map value is stored")
}

// TestViewTTLPerElement: WithTTL on a list or map view expires each element
// or entry on its own when it was not written for the TTL (ptf.WithTTL doc;
// reference §7 "For views, TTL applies per element/entry"). The runtime's
// views (internal/runtime view.go, ptfop.go ViewState) ignore the TTL: the
// elements never expire.
func TestViewTTLPerElement(t *testing.T) {
	def, _, _ := viewDef(ptf.WithTTL(30 * time.Second))
	h := newOps(t, def)
	mustSend(t, h, "a", "add:old put:old", t0)
	h.AdvanceTime(20 * time.Second)
	mustSend(t, h, "a", "add:new put:new", t0)
	h.AdvanceTime(10 * time.Second) // old: 30 s, new: 10 s
	mustSend(t, h, "a", "emit", t0)
	require.Equal(t, rows("+I[a, new, new=1]"), take(h))
}

// TestViewStateIsNotAValue: the harness's State functions take value-state
// entries only.
func TestViewStateIsNotAValue(t *testing.T) {
	def, list, counts := viewDef()
	h := newOps(t, def)
	require.ErrorContains(t, h.ClearState(list, key("a")...), "value-state entries")
	require.ErrorContains(t, h.SetState(counts, map[string]int64{}, key("a")...), "value-state entries")
	_, err := ptftest.New(def) // no table
	require.Error(t, err)
}
