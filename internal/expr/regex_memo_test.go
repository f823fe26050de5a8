package expr

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestRegexMemo: a call site with a literal pattern remembers results by
// string; over more distinct strings than it has slots (so entries
// collide and are replaced), some too long to be remembered, and from
// two goroutines at once, every result equals the same call with the
// pattern in a column (which is not memoized).
func TestRegexMemo(t *testing.T) {
	env := &testEnv{names: []string{"s", "p", "r"}, cols: []types.Type{types.String, types.String, types.String}}
	pattern := `(&|^)id=([^&]*)`
	pairs := [][2]string{
		{"(REGEXP_EXTRACT s '" + pattern + "' 2)", "(REGEXP_EXTRACT s p 2)"},
		{"(REGEXP s '" + pattern + "')", "(REGEXP s p)"},
		{"(REGEXP_SUBSTR s '" + pattern + "')", "(REGEXP_SUBSTR s p)"},
		{"(REGEXP_INSTR s '" + pattern + "')", "(REGEXP_INSTR s p)"},
		{"(REGEXP_COUNT s '" + pattern + "')", "(REGEXP_COUNT s p)"},
		{"(REGEXP_REPLACE s '" + pattern + "' '#')", "(REGEXP_REPLACE s p r)"},
	}
	r := rand.New(rand.NewPCG(5, 8))
	pool := make([]string, 3000)
	for i := range pool {
		var b strings.Builder
		fmt.Fprintf(&b, "q=%d", r.IntN(100))
		if r.IntN(10) > 0 {
			fmt.Fprintf(&b, "&id=%d", r.IntN(1_000_000))
		}
		if i%100 == 0 {
			b.WriteString(strings.Repeat("&x=y", 200)) // longer than memoMaxLen
		}
		pool[i] = b.String()
	}
	for _, pr := range pairs {
		lit, err := env.parse(pr[0])
		require.NoError(t, err)
		col, err := env.parse(pr[1])
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for g := range 2 {
			wg.Go(func() {
				gr := rand.New(rand.NewPCG(uint64(g), 1))
				for range 20_000 {
					s := pool[gr.IntN(len(pool))]
					row := []types.Value{types.NewString(s), types.NewString(pattern), types.NewString("#")}
					got, err := lit.Eval(row)
					if err != nil {
						errs <- err
						return
					}
					want, err := col.Eval(row)
					if err != nil {
						errs <- err
						return
					}
					if got.String() != want.String() {
						errs <- fmt.Errorf("%s on %q: %v, without the memo %v", pr[0], s, got, want)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}
}

// BenchmarkRegexMemo: REGEXP_EXTRACT over strings that repeat (a pool of
// 500) and that never do, with the literal pattern (memoized) and with the
// pattern in a column (not), to show what the memo saves and costs.
func BenchmarkRegexMemo(b *testing.B) {
	env := &testEnv{names: []string{"s", "p"}, cols: []types.Type{types.String, types.String}}
	pattern := `(&|^)channel_id=([^&]*)`
	for _, src := range []struct{ name, expr string }{
		{"memo", "(REGEXP_EXTRACT s '" + pattern + "' 2)"},
		{"no-memo", "(REGEXP_EXTRACT s p 2)"},
	} {
		for _, distinct := range []bool{false, true} {
			name := src.name + "/repeating"
			if distinct {
				name = src.name + "/distinct"
			}
			b.Run(name, func(b *testing.B) {
				e, err := env.parse(src.expr)
				require.NoError(b, err)
				row := []types.Value{types.Null, types.NewString(pattern)}
				n := 500
				if distinct {
					n = 1 << 18
				}
				in := make([]types.Value, n)
				for i := range in {
					in[i] = types.NewString(fmt.Sprintf("https://www.nexmark.com/abc/def/item.htm?query=1&channel_id=%d", i))
				}
				i := 0
				for b.Loop() {
					row[0] = in[i%n]
					i++
					if _, err := e.Eval(row); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
