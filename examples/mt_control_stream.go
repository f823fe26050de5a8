package examples

import (
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// TenantConfig is the active mode of one tenant.
type TenantConfig struct {
	ActiveMode string `json:"activeMode"`
}

var tenantConfig = ptf.NewValue[TenantConfig]("state").WithInit(func(c *TenantConfig) {
	c.ActiveMode = "default"
})

// MtControlStream reads two co-partitioned tables: control rows set a
// tenant's mode, event rows are emitted tagged with the current mode.
//
//	SELECT * FROM MtControlStream(
//	    events  => TABLE events  PARTITION BY tenant_id,
//	    control => TABLE control PARTITION BY tenant_id)
var MtControlStream = &ptf.Definition{
	Doc: "Tags events with the per-tenant mode set by a control stream.",
	Args: []ptf.Arg{
		ptf.Table("events", ptf.SetSemantic),
		ptf.Table("control", ptf.SetSemantic),
	},
	Output: "ROW<payload STRING, active_mode STRING>",
	State:  []ptf.StateEntry{tenantConfig},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		st := tenantConfig.Get(ctx)
		switch in.Arg {
		case "control":
			if mode := in.Row.Get("mode"); !mode.IsNull() {
				st.ActiveMode = mode.Str()
			}
		case "events":
			ctx.Collect(in.Row.Get("payload"), types.NewString(st.ActiveMode))
		}
		return nil
	},
}
