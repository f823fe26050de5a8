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
	// [{[1] inactivity 2026-08-01 09:01:30 +0000 UTC}]
	// +I[1, inactive, 60000, 2026-08-01 09:01:30.000]
}
