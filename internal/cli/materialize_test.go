package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/types"
)

// rowsText renders a materializer's rows as "a b | c d" for comparisons.
func rowsText(m *materializer) string {
	var rows []string
	for _, r := range m.Rows() {
		rows = append(rows, strings.Join(formatRow(orderSchema, r), " "))
	}
	return strings.Join(rows, " | ")
}

func TestMaterializeUpsert(t *testing.T) {
	m := newMaterializer([]int{0})
	for _, r := range orderChanges {
		m.Apply(r)
	}
	require.Equal(t, "101 DELIVERED | 103 PENDING", rowsText(m))
	require.Equal(t, 2, m.Len())

	// +U without -U replaces in place; +I of an existing key too.
	m.Apply(order(types.UpdateAfter, 103, "SHIPPED"))
	m.Apply(order(types.Insert, 101, "RETURNED"))
	require.Equal(t, "101 RETURNED | 103 SHIPPED", rowsText(m))

	// A key-only delete (non-key columns NULL) removes the row; a later
	// insert of that key gets its first position back.
	m.Apply(types.Row{Kind: types.Delete, Values: []types.Value{types.NewInt(101), types.Null}})
	m.Apply(order(types.Insert, 105, "PENDING"))
	require.Equal(t, "103 SHIPPED | 105 PENDING", rowsText(m))
	m.Apply(order(types.Insert, 101, "AGAIN"))
	require.Equal(t, "101 AGAIN | 103 SHIPPED | 105 PENDING", rowsText(m))

	// Deleting an absent key is ignored.
	m.Apply(order(types.Delete, 999, "x"))
	require.Equal(t, 3, m.Len())
}

func TestMaterializeMultiset(t *testing.T) {
	m := newMaterializer(nil)
	for _, r := range []types.Row{
		order(types.Insert, 1, "a"),
		order(types.Insert, 2, "b"),
		order(types.Insert, 1, "a"), // a duplicate row
		order(types.Insert, 3, "c"),
	} {
		m.Apply(r)
	}
	require.Equal(t, "1 a | 2 b | 1 a | 3 c", rowsText(m))

	// -U removes the last equal row; the +U after it takes its place.
	m.Apply(order(types.UpdateBefore, 1, "a"))
	m.Apply(order(types.UpdateAfter, 1, "z"))
	require.Equal(t, "1 a | 2 b | 1 z | 3 c", rowsText(m))

	// -D removes one equal row only; retracting an absent row is ignored.
	m.Apply(order(types.Delete, 1, "a"))
	m.Apply(order(types.Delete, 7, "nope"))
	require.Equal(t, "2 b | 1 z | 3 c", rowsText(m))

	// A +U that does not follow a -U is an insert at the end.
	m.Apply(order(types.UpdateAfter, 4, "d"))
	require.Equal(t, "2 b | 1 z | 3 c | 4 d", rowsText(m))

	// Equal rows: a retraction after a refill removes the later one.
	m.Apply(order(types.UpdateBefore, 2, "b"))
	m.Apply(order(types.UpdateAfter, 4, "d")) // fills 2 b's slot, before the other 4 d
	m.Apply(order(types.Delete, 4, "d"))
	require.Equal(t, "4 d | 1 z | 3 c", rowsText(m))
}

// TestMaterializeCompaction checks that tombstones are dropped and the
// index stays right across compactions.
func TestMaterializeCompaction(t *testing.T) {
	for _, key := range [][]int{{0}, nil} {
		t.Run(fmt.Sprint(key), func(t *testing.T) {
			m := newMaterializer(key)
			const n = 5000
			for i := range n {
				m.Apply(order(types.Insert, int64(i), "x"))
			}
			for i := range n - 2 {
				m.Apply(order(types.Delete, int64(i), "x"))
			}
			require.Less(t, len(m.slots), n, "tombstones were compacted")
			require.Equal(t, fmt.Sprintf("%d x | %d x", n-2, n-1), rowsText(m))
			m.Apply(order(types.UpdateBefore, n-2, "x"))
			m.Apply(order(types.UpdateAfter, n-2, "y"))
			m.Apply(order(types.Insert, 7, "x"))
			require.Equal(t, fmt.Sprintf("%d y | %d x | 7 x", n-2, n-1), rowsText(m))
		})
	}
}

func TestAppendKeyDistinguishes(t *testing.T) {
	vals := []types.Value{
		types.Null, types.NewInt(0), types.NewInt(1), types.NewBool(true), types.NewFloat(1),
		types.NewString(""), types.NewString("1"), types.NewBytes([]byte("1")),
		types.NewArray([]types.Value{types.NewInt(1)}), types.NewRow([]types.Value{types.NewInt(1)}),
		types.NewMap([]types.MapEntry{{Key: types.NewInt(1), Val: types.Null}}),
	}
	seen := map[string]int{}
	for i, v := range vals {
		k := string(appendKey(nil, v))
		if j, dup := seen[k]; dup {
			t.Fatalf("values %d and %d encode the same", j, i)
		}
		seen[k] = i
	}
	// Concatenations must not collide either: ("ab","") vs ("a","b").
	a := appendKey(appendKey(nil, types.NewString("ab")), types.NewString(""))
	b := appendKey(appendKey(nil, types.NewString("a")), types.NewString("b"))
	require.NotEqual(t, a, b)
}
