package ptf_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/stretchr/testify/require"
)

func TestRegistry(t *testing.T) {
	r := ptf.NewRegistry()
	def := &ptf.Definition{Args: []ptf.Arg{ptf.Table("input")}, Output: "INT", Eval: noop}
	require.NoError(t, r.Register("acme.Greet", def))
	require.NoError(t, r.Register("Plain", def))
	got, ok := r.Lookup("acme.Greet")
	require.True(t, ok)
	require.Same(t, def, got)
	_, ok = r.Lookup("acme.greet")
	require.False(t, ok, "ids are case-sensitive")
	require.Equal(t, []string{"Plain", "acme.Greet"}, r.IDs())

	for _, tc := range []struct {
		id   string
		def  *ptf.Definition
		want string
	}{
		{"acme.Greet", def, `registering function "acme.Greet": already registered`},
		{"acme..Greet", def, "ids are dotted identifiers"},
		{"1acme", def, "ids are dotted identifiers"},
		{"acme.Bad", &ptf.Definition{Output: "INT"}, `registering function "acme.Bad": definition has no Eval function`},
	} {
		require.ErrorContains(t, r.Register(tc.id, tc.def), tc.want, tc.id)
	}
	require.Panics(t, func() { r.MustRegister("acme.Greet", def) })
}

// TestRegistryConcurrent: a registry may be used from several goroutines
// (run with -race).
func TestRegistryConcurrent(t *testing.T) {
	r := ptf.NewRegistry()
	def := &ptf.Definition{Output: "INT", Eval: noop}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			id := fmt.Sprintf("f%d", i)
			if err := r.Register(id, def); err != nil {
				t.Error(err)
			}
			r.Lookup(id)
			r.IDs()
		})
	}
	wg.Wait()
	require.Len(t, r.IDs(), 8)
}
