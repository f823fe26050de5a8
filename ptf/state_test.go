package ptf_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

type rec struct {
	Count  int64             `json:"count"`
	Tags   []string          `json:"tags,omitempty"`
	ByName map[string]*inner `json:"byName,omitempty"`
	hidden int
}

type inner struct{ X float64 }

// TestStateEntries: what the engine learns about each kind of entry.
func TestStateEntries(t *testing.T) {
	v := ptf.NewValue[rec]("v", ptf.WithTTL(time.Hour))
	l := ptf.NewList[inner]("l", ptf.WithTTL(ptf.NoTTL))
	m := ptf.NewMap[string, []int]("m")
	for _, tc := range []struct {
		e      ptf.StateEntry
		kind   ptf.StateKind
		ttl    time.Duration
		schema string
	}{
		{v, ptf.ValueStateKind, time.Hour,
			"ptf_test.rec{Count int64;Tags []string;ByName map[string]*ptf_test.inner{X float64;};}"},
		{l, ptf.ListStateKind, ptf.NoTTL, "list ptf_test.inner{X float64;}"},
		{m, ptf.MapStateKind, ptf.DefaultTTL, "map string -> []int"},
	} {
		require.Equal(t, tc.kind, tc.e.StateKind(), tc.e.StateName())
		require.Equal(t, tc.ttl, tc.e.StateTTL(), tc.e.StateName())
		require.Equal(t, tc.schema, tc.e.StateSchema(), tc.e.StateName())
	}
	require.Nil(t, l.NewState())
	require.Nil(t, m.NewState())
}

// TestValueEncoding: value state round-trips through the default (binary)
// codec; the zero value is "empty" (removed instead of written).
func TestValueEncoding(t *testing.T) {
	v := ptf.NewValue[rec]("v")
	b, err := v.EncodeState(&rec{Count: 2, Tags: []string{"a"}})
	require.NoError(t, err)
	got, err := v.DecodeState(b)
	require.NoError(t, err)
	require.Equal(t, &rec{Count: 2, Tags: []string{"a"}}, got)
	_, err = v.DecodeState([]byte("{"))
	require.ErrorContains(t, err, "decoding state 'v'")

	require.True(t, v.IsEmptyState(&rec{}))
	require.True(t, v.IsEmptyState(v.NewState()))
	require.False(t, v.IsEmptyState(&rec{Count: 1}))
	require.False(t, v.IsEmptyState(&rec{Tags: []string{}}), "an empty non-nil slice is not zero")
	require.False(t, v.IsEmptyState("not a *rec"))

	withInit := ptf.NewValue[rec]("w").WithInit(func(r *rec) { r.Count = 10 })
	require.Equal(t, &rec{Count: 10}, withInit.NewState())
}

// textCodec stores a counter as decimal text and counts its calls.
type textCodec struct{ encodes, decodes *int }

func (c textCodec) Encode(v *int64) ([]byte, error) {
	*c.encodes++
	return []byte(strconv.FormatInt(*v, 10)), nil
}

func (c textCodec) Decode(b []byte, v *int64) error {
	*c.decodes++
	n, err := strconv.ParseInt(string(b), 10, 64)
	*v = n
	return err
}

// TestWithCodec: a custom codec stores the state; the engine uses it when it
// writes state back (at a snapshot) and reads it again (after a restore).
func TestWithCodec(t *testing.T) {
	var encodes, decodes int
	v := ptf.NewValue[int64]("n").WithCodec(textCodec{&encodes, &decodes})
	b, err := v.EncodeState(ptr(int64(42)))
	require.NoError(t, err)
	require.Equal(t, "42", string(b))

	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "BIGINT",
		State:  []ptf.StateEntry{v},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			n := v.Get(ctx)
			*n++
			ctx.Collect(types.NewInt(*n))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k INT>", ptftest.PartitionBy("k")))
	require.NoError(t, err)
	require.NoError(t, h.Insert("input", types.NewInt(1)))
	encodes, decodes = 0, 0
	snap, err := h.Snapshot()
	require.NoError(t, err)
	require.Equal(t, 1, encodes)
	require.NoError(t, h.Restore(snap))
	require.NoError(t, h.Insert("input", types.NewInt(1)))
	require.Equal(t, 1, decodes)
	require.Equal(t, "+I[1, 1]\n+I[1, 2]\n", h.Format(h.Output()))
}

func ptr[T any](v T) *T { return &v }
