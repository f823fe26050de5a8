package types_test

import (
	"fmt"

	"github.com/eddy-sql/eddy/types"
)

func ExampleParseType() {
	t, err := types.ParseType("row<status string not null, price decimal(10,4), ts timestamp(3) with local time zone>")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t)
	fmt.Println(t.Fields[1].Type.Precision, t.Fields[1].Type.Scale)

	_, err = types.ParseType("MAP<STRING>")
	fmt.Println(err)
	// Output:
	// ROW<`status` STRING NOT NULL, `price` DECIMAL(10, 4), `ts` TIMESTAMP_LTZ(3)>
	// 10 4
	// invalid type "MAP<STRING>" at position 10: expected ",", found ">"
}

func ExampleFormat() {
	price, _ := types.ParseDecimal("1.085")
	ts, _ := types.ParseTimestamp("2026-08-01 09:00:00")
	fmt.Println(types.Format(types.NewDecimal(price), types.Decimal(10, 4)))
	fmt.Println(types.Format(ts, types.Timestamp(3)))
	fmt.Println(types.Format(types.NewFloat(120), types.Double))
	fmt.Println(types.Format(types.NewFloat(1e-5), types.Double))
	fmt.Println(types.Format(types.Null, types.Int))
	fmt.Println(types.Format(types.NewArray([]types.Value{types.NewInt(1), types.NewInt(2)}), types.ArrayOf(types.Int)))
	fmt.Println(types.FormatSQL(types.NewString("it's"), types.String))
	fmt.Println(types.FormatSQL(ts, types.Timestamp(3)))
	// Output:
	// 1.0850
	// 2026-08-01 09:00:00.000
	// 120.0
	// 1.0E-5
	// <NULL>
	// [1, 2]
	// 'it''s'
	// TIMESTAMP '2026-08-01 09:00:00.000'
}
