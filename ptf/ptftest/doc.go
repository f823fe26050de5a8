// Package ptftest unit-tests process table functions without an engine,
// like Flink's ProcessTableFunctionTestHarness, with the exact semantics of
// Eddy's runtime: the same output schema (key prefix or pass-through
// columns, function columns, rowtime), the same state rules (absent, empty
// and cleared state, TTL in processing time) and the same timer order.
//
//	h, err := ptftest.New(examples.OrderStatusTracker,
//		ptftest.Table("input", "ROW<order_id INT, event_type STRING>", ptftest.PartitionBy("order_id")))
//	h.Insert("input", types.NewInt(101), types.NewString("PLACED"))
//	h.Output() // [+I[101, PENDING]]
//
// Time is virtual: watermarks move only with Watermark and End, processing
// time (state TTL, processing-time timers) only with AdvanceTime and
// SetProcessingTime, which fire the processing-time timers they pass.
package ptftest
