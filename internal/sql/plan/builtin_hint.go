package plan

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// builtinTableFunctions are Flink's built-in table functions. A call to
// one that the planner does not run is answered with what it is, never
// with a hint to register a function under its name.
var builtinTableFunctions = map[string]string{
	"TUMBLE":   "window",
	"HOP":      "window",
	"CUMULATE": "window",
	"SESSION":  "window",
}

// builtinTableFunctionError returns the error for a call of a built-in
// table function that is not supported, or nil when name is not one.
func builtinTableFunctionError(name string, pos sqlerr.Pos) *sqlerr.Error {
	kind, ok := builtinTableFunctions[strings.ToUpper(name)]
	if !ok {
		return nil
	}
	return errAt(pos, sqlerr.Unsupported, "%s is Flink's built-in %s table function, which Eddy does not run yet", strings.ToUpper(name), kind).
		WithHint("docs/sql.md lists the supported SQL; group by time with a process table function (on_time, timers), or GROUP BY a computed bucket such as FLOOR(ts TO MINUTE)")
}
