package ptf_test

import (
	"fmt"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// Definitions are validated when they are registered.
func ExampleRegistry_Register() {
	r := ptf.NewRegistry()
	bad := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.SupportUpdates, ptf.PassColumnsThrough)},
		Output: "BIGINT",
		Eval:   func(*ptf.Context, ptf.Input) error { return nil },
	}
	fmt.Println(r.Register("acme.Bad", bad))
	// Output:
	// registering function "acme.Bad": signatures with updating inputs must not pass columns through (argument 'input')
}

// A function that chooses its changelog mode from what the consumer needs.
func ExampleChangelogContext() {
	def := &ptf.Definition{
		Changelog: func(c ptf.ChangelogContext) ptf.ChangelogMode {
			if c.Required.Contains(types.UpdateBefore) {
				return ptf.Retract()
			}
			return ptf.Upsert()
		},
	}
	fmt.Println(def.ProducedMode(ptf.ChangelogContext{Required: ptf.Retract()}))
	fmt.Println(def.ProducedMode(ptf.ChangelogContext{Required: ptf.Upsert()}))
	// Output:
	// [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]
	// [INSERT, UPDATE_AFTER, ~DELETE]
}
