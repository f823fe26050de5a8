package runtime

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// collectOut is an Output that records what an operator emits, for
// operator unit tests.
type collectOut struct {
	rows []types.Row
	wms  []int64
}

func (c *collectOut) Emit(row types.Row) error {
	c.rows = append(c.rows, types.Row{Kind: row.Kind, Values: append([]types.Value(nil), row.Values...)})
	return nil
}

func (c *collectOut) Watermark(wm int64) error {
	c.wms = append(c.wms, wm)
	return nil
}

// String renders the rows one per line as "+I[1, a]", then clears them.
func (c *collectOut) take() string {
	var b strings.Builder
	for _, r := range c.rows {
		fmt.Fprintf(&b, "%s%v\n", r.Kind, r.Values)
	}
	c.rows = c.rows[:0]
	return b.String()
}
