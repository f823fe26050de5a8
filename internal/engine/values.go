package engine

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/types"
)

// appendRows writes rows into a table's log and commits them at once.
// Rows are placed by the table's bucket key (Kafka's murmur2 partitioner)
// or round-robin without one.
func (e *Engine) appendRows(t *catalog.Table, rows []types.Row) error {
	phys := t.PhysicalSchema()
	var keyIdx []int
	var keyTypes []types.Type
	for _, k := range t.BucketKey() {
		i := phys.Index(k)
		keyIdx = append(keyIdx, i)
		keyTypes = append(keyTypes, phys.Fields[i].Type)
	}
	w := e.logs.NewWriter()
	var kbuf, vbuf []byte
	var kvals []types.Value
	n := t.Buckets()
	for i, r := range rows {
		p := i % n
		kbuf = kbuf[:0]
		if len(keyIdx) > 0 {
			kvals = kvals[:0]
			for _, k := range keyIdx {
				kvals = append(kvals, r.Values[k])
			}
			kbuf = types.KeyBytes(kbuf, kvals, keyTypes)
			p = logstore.Partition(kbuf, n)
		}
		vbuf = types.AppendRow(vbuf[:0], r)
		w.Append(t.Log, p, kbuf, vbuf)
	}
	if err := e.logs.Commit(w, e.db.NewWriteBatch(), true); err != nil {
		return fmt.Errorf("writing into %s: %w", t.Name, err)
	}
	return nil
}
