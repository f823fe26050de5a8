package engine_test

import (
	"fmt"
	"testing"
)

func TestScratchSync(t *testing.T) {
	for _, limit := range []bool{false, true} {
		fails := 0
		for i := 0; i < 30; i++ {
			h := newHarness(t, true)
			mustExec(t, h, "CREATE TABLE orders (order_id INT, amount INT) DISTRIBUTED INTO 1 BUCKETS")
			mustExec(t, h, "INSERT INTO orders VALUES (1, 12), (2, 5), (3, 7)")
			if limit {
				selectAll(t, h, "SELECT * FROM orders LIMIT 1")
			}
			mustExec(t, h, "CREATE TABLE big (order_id INT, amount INT)")
			mustExec(t, h, "INSERT INTO big SELECT order_id, amount FROM orders WHERE amount >= 10")
			selectAll(t, h, "SELECT * FROM big")
			mustExec(t, h, "INSERT INTO orders VALUES (6, 10)")
			if len(selectAll(t, h, "SELECT * FROM big")) != 2 {
				fails++
			}
		}
		fmt.Println("limit", limit, "fails", fails, "of 30")
	}
}
