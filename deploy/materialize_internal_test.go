package deploy

import (
	"fmt"
	"testing"

	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/stretchr/testify/require"
)

func TestMaterializer(t *testing.T) {
	ch := func(op Op, vals ...any) Change { return Change{Op: op, Values: vals} }
	for _, tc := range []struct {
		name    string
		key     []int
		changes []Change
		want    string
	}{{
		name: "upsert: updates keep their place, deletes and re-inserts",
		key:  []int{0},
		changes: []Change{
			ch(Insert, "1", "a"), ch(Insert, "2", "b"), ch(UpdateBefore, "1", "a"), ch(UpdateAfter, "1", "c"),
			ch(Delete, "2", "b"), ch(UpdateAfter, "3", "d"), ch(Insert, "2", "e"), ch(Delete, "9", nil),
		},
		want: "[[1 c] [2 e] [3 d]]",
	}, {
		name: "upsert: a delete with only the key",
		key:  []int{1},
		changes: []Change{
			ch(Insert, "x", "1"), ch(Delete, nil, "1"),
		},
		want: "[]",
	}, {
		name: "upsert: NULL and the string null are different keys",
		key:  []int{0},
		changes: []Change{
			ch(Insert, nil, "a"), ch(Insert, "null", "b"), ch(UpdateAfter, nil, "c"),
		},
		want: "[[<nil> c] [null b]]",
	}, {
		name: "multiset: -U/+U takes the retracted row's place",
		changes: []Change{
			ch(Insert, "a"), ch(Insert, "b"), ch(Insert, "a"), ch(UpdateBefore, "b"), ch(UpdateAfter, "B"),
		},
		want: "[[a] [B] [a]]",
	}, {
		name: "multiset: a retraction removes the latest equal row; absent rows are ignored",
		changes: []Change{
			ch(Insert, "a", "1"), ch(Insert, "b", "2"), ch(Insert, "a", "1"), ch(Delete, "a", "1"), ch(Delete, "z", "9"),
			ch(UpdateAfter, "c", "3"),
		},
		want: "[[a 1] [b 2] [c 3]]",
	}, {
		name: "multiset: nested values",
		changes: []Change{
			ch(Insert, []any{"x", "1"}), ch(Insert, []any{"x", "2"}), ch(Delete, []any{"x", "1"}),
		},
		want: "[[[x 2]]]",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMaterializer(tc.key)
			for _, c := range tc.changes {
				m.apply(c)
			}
			require.Equal(t, tc.want, fmt.Sprint(m.rows()))
		})
	}
}

func TestFormatProperties(t *testing.T) {
	props := map[string]string{"server": " http://x\\y\n", "api.key": "k\t=:#", "other": "skipped"}
	b := formatProperties(props, []string{"server", "api.key"})
	got, err := cli.ParseProperties("f", string(b), []string{"server", "api.key"})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"server": " http://x\\y\n", "api.key": "k\t=:#"}, got)
}
