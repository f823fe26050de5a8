package plan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAggregateInfo checks that SHOW FUNCTIONS and DESCRIBE FUNCTION
// describe every built-in aggregate, and nothing else under that family.
func TestAggregateInfo(t *testing.T) {
	described := map[string]bool{}
	for _, f := range aggregateInfo {
		require.False(t, described[f.Name], "%s is described twice", f.Name)
		described[f.Name] = true
		require.NotEmpty(t, f.Signatures, f.Name)
		require.NotEmpty(t, f.Description, f.Name)
		if f.Family == "aggregate" {
			_, ok := aggFuncs[f.Name]
			require.True(t, ok, "%s is described as an aggregate but is not one", f.Name)
		}
	}
	for name := range aggFuncs {
		require.True(t, described[name], "aggregate %s is not described in aggregateInfo", name)
		got, ok := LookupBuiltin(name)
		require.True(t, ok)
		require.Equal(t, name, got.Name)
	}
	for _, name := range []string{"GROUPING", "GROUPING_ID", "GROUP_ID"} {
		require.True(t, isBuiltinName(name) && described[name], name)
	}
}

// TestSuggestFunction checks the did-you-mean over built-in scalar and
// aggregate functions and user functions, shown as created.
func TestSuggestFunction(t *testing.T) {
	users := []string{"Slugify", "WeightedAvg"}
	for in, want := range map[string]string{
		"UPPPER": "UPPER", "countt": "COUNT", "slugfy": "Slugify", "WEIGHTEDAVGG": "WeightedAvg",
		"LISTAG": "LISTAGG", "zzzzzzzz": "",
	} {
		require.Equal(t, want, SuggestFunction(in, users), in)
	}
}
