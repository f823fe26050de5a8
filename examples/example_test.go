package examples_test

import (
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

func ts(s string) types.Value {
	v, err := types.ParseTimestamp(s)
	if err != nil {
		panic(err)
	}
	return v
}

// The order-status tracker emits an upsert changelog per order_id.
func Example_orderStatusTracker() {
	h, err := ptftest.New(examples.OrderStatusTracker,
		ptftest.Name("OrderStatusTracker"),
		ptftest.Table("input", "ROW<order_id INT NOT NULL, event_type STRING, event_time TIMESTAMP(3)>",
			ptftest.PartitionBy("order_id")))
	if err != nil {
		panic(err)
	}
	events := []struct {
		id    int64
		event string
	}{{101, "PLACED"}, {102, "PLACED"}, {101, "FULFILLED"}, {102, "CANCELED"}, {101, "SHIPPED"}}
	for _, e := range events {
		if err := h.Insert("input", types.NewInt(e.id), types.NewString(e.event), ts("2026-08-01 09:00:00")); err != nil {
			panic(err)
		}
	}
	fmt.Println(h.Schema().Names(), h.ChangelogMode())
	fmt.Print(h.Format(h.Output()))
	// Output:
	// [order_id status] [INSERT, UPDATE_AFTER, DELETE]
	// +I[101, PENDING]
	// +I[102, PENDING]
	// -D[102, PENDING]
	// +U[101, SHIPPED]
}

// InactivityAlert fires an event-time timer 60 s after a user's last event.
func Example_inactivityAlert() {
	h, err := ptftest.New(examples.InactivityAlert,
		ptftest.Name("InactivityAlert"),
		ptftest.Table("input", "ROW<user_id INT, event_time TIMESTAMP(3)>",
			ptftest.PartitionBy("user_id"), ptftest.TimeAttribute("event_time")),
		ptftest.OnTime("event_time"))
	if err != nil {
		panic(err)
	}
	_ = h.Insert("input", types.NewInt(1), ts("2026-08-01 09:00:00"))
	_ = h.Insert("input", types.NewInt(1), ts("2026-08-01 09:00:30"))
	fmt.Println(h.Timers(types.NewInt(1)))
	_ = h.Watermark(time.Date(2026, 8, 1, 9, 2, 0, 0, time.UTC))
	fmt.Print(h.Format(h.Output()))
	// Output:
	// [{[1] inactivity 2026-08-01 09:01:30 +0000 UTC EVENT_TIME}]
	// +I[1, inactive, 60000, 2026-08-01 09:01:30.000]
}

// ThresholdFilter passes the input columns through and appends EXPR$0.
func Example_thresholdFilter() {
	h, err := ptftest.New(examples.ThresholdFilter,
		ptftest.Table("input", "ROW<sensor_id INT, `value` DOUBLE>", ptftest.PartitionBy("sensor_id")),
		ptftest.Arg("threshold", types.NewFloat(100)))
	if err != nil {
		panic(err)
	}
	_ = h.Insert("input", types.NewInt(1), types.NewFloat(99.5))
	_ = h.Insert("input", types.NewInt(1), types.NewFloat(120))
	fmt.Println(h.Schema().Names())
	fmt.Print(h.Format(h.Output()))
	// Output:
	// [sensor_id value EXPR$0]
	// +I[1, 99.5, FALSE]
	// +I[1, 120.0, TRUE]
}

// Median keeps the trailing readings of each sensor in value state.
func Example_median() {
	h, err := ptftest.New(examples.Median,
		ptftest.Table("input", "ROW<sensor_id INT, temperature DOUBLE>", ptftest.PartitionBy("sensor_id")),
		ptftest.Arg("numTrailing", types.NewInt(3)))
	if err != nil {
		panic(err)
	}
	for _, temp := range []float64{20, 22, 21, 24, 23} {
		if err := h.Insert("input", types.NewInt(1), types.NewFloat(temp)); err != nil {
			panic(err)
		}
	}
	st, _, _ := h.State(examples.Median.State[0], types.NewInt(1))
	fmt.Print(h.Format(h.Output()))
	fmt.Println(st.(*examples.TempsState).Temps)
	// Output:
	// +I[1, 20.0, 20.0]
	// +I[1, 22.0, 21.0]
	// +I[1, 21.0, 21.0]
	// +I[1, 24.0, 22.0]
	// +I[1, 23.0, 23.0]
	// [21 24 23]
}

// TtlCountdown's counter expires after 30 s of processing time without a
// write; AdvanceTime moves the harness's virtual clock.
func Example_ttlCountdown() {
	h, err := ptftest.New(examples.TtlCountdown,
		ptftest.Table("input", "ROW<user_id INT>", ptftest.PartitionBy("user_id")))
	if err != nil {
		panic(err)
	}
	click := func() { _ = h.Insert("input", types.NewInt(1234)) }
	click()
	click()
	h.AdvanceTime(29 * time.Second)
	click() // 29 s after the last write: 3
	h.AdvanceTime(30 * time.Second)
	click() // 30 s idle: starts again
	fmt.Print(h.Format(h.Output()))
	// Output:
	// +I[1234, 1]
	// +I[1234, 2]
	// +I[1234, 3]
	// +I[1234, 1]
}

// MtControlStream reads two tables partitioned by the same key; the key is
// repeated once per table.
func Example_mtControlStream() {
	h, err := ptftest.New(examples.MtControlStream,
		ptftest.Table("events", "ROW<tenant_id STRING, payload STRING>", ptftest.PartitionBy("tenant_id")),
		ptftest.Table("control", "ROW<tenant_id STRING, `mode` STRING>", ptftest.PartitionBy("tenant_id")))
	if err != nil {
		panic(err)
	}
	s := types.NewString
	_ = h.Insert("control", s("T1"), s("turbo"))
	_ = h.Insert("events", s("T1"), s("p1"))
	_ = h.Insert("events", s("T2"), s("p3"))
	fmt.Println(h.Schema().Names())
	fmt.Print(h.Format(h.Output()))
	// Output:
	// [tenant_id tenant_id0 payload active_mode]
	// +I[T1, T1, p1, turbo]
	// +I[T2, T2, p3, default]
}

// ChangelogAuditor consumes a retract changelog: with REQUIRE_UPDATE_BEFORE
// an upsert table partitioned by its key arrives as +I, -U, +U, -D.
func Example_changelogAuditor() {
	h, err := ptftest.New(examples.ChangelogAuditor,
		ptftest.Table("input", "ROW<currency STRING, rate DECIMAL(10, 4)>",
			ptftest.PartitionBy("currency"), ptftest.Upsert("currency")))
	if err != nil {
		panic(err)
	}
	rate := func(s string) types.Value {
		d, _ := types.ParseDecimal(s)
		return types.NewDecimal(d)
	}
	eur := types.NewString("EUR")
	_ = h.Process("input", types.Insert, eur, rate("1.0850"))
	_ = h.Process("input", types.UpdateBefore, eur, rate("1.0850"))
	_ = h.Process("input", types.UpdateAfter, eur, rate("1.0920"))
	_ = h.Process("input", types.Delete, eur, rate("1.0920"))
	fmt.Print(h.Format(h.Output()))
	// Output:
	// +I[EUR, INSERT, <NULL>, 1.0850]
	// +I[EUR, UPDATE, 1.0850, 1.0920]
	// +I[EUR, DELETE, 1.0920, <NULL>]
}

// RunningMax emits an upsert changelog keyed by the partition key.
func Example_runningMax() {
	h, err := ptftest.New(examples.RunningMax,
		ptftest.Table("input", "ROW<currency STRING, rate DECIMAL(10, 4)>", ptftest.PartitionBy("currency")))
	if err != nil {
		panic(err)
	}
	for _, r := range []string{"1.0850", "1.0920", "1.0875"} {
		d, _ := types.ParseDecimal(r)
		_ = h.Insert("input", types.NewString("EUR"), types.NewDecimal(d))
	}
	fmt.Println(h.ChangelogMode())
	fmt.Print(h.Format(h.Output()))
	// Output:
	// [INSERT, UPDATE_AFTER, ~DELETE]
	// +I[EUR, 1.0850]
	// +U[EUR, 1.0920]
}

// PassThroughEnrich appends a running count to the passed-through columns.
func Example_passThroughEnrich() {
	h, err := ptftest.New(examples.PassThroughEnrich,
		ptftest.Table("input", "ROW<user_id INT, click_id STRING, url STRING>", ptftest.PartitionBy("user_id")))
	if err != nil {
		panic(err)
	}
	s := types.NewString
	_ = h.Insert("input", types.NewInt(1234), s("click-42"), s("/home"))
	_ = h.Insert("input", types.NewInt(1234), s("click-55"), s("/shop"))
	_ = h.Insert("input", types.NewInt(5678), s("click-87"), s("/home"))
	fmt.Print(h.Format(h.Output()))
	// Output:
	// +I[1234, click-42, /home, 1]
	// +I[1234, click-55, /shop, 2]
	// +I[5678, click-87, /home, 1]
}
