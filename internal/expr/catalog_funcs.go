package expr

import "github.com/eddy-sql/eddy/types"

// Catalog functions: what the session's catalog position is.

func init() {
	register("catalog", []funcDef{
		fdef("CURRENT_DATABASE", 0, 0, "CURRENT_DATABASE() -> STRING NOT NULL",
			"The name of the session's current database (USE sets it).", newCurrentDatabase),
	})
}

func newCurrentDatabase(c *call) (Expr, error) {
	if c.env.Database == "" {
		return nil, typeErrorf("%s() needs the session's database, which this context does not provide", c.name)
	}
	v := types.NewString(c.env.Database)
	return c.strictFn(types.String, true, func([maxFixedArgs]types.Value) (types.Value, error) { return v, nil }), nil
}
