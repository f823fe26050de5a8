package catalog

import "fmt"

// ReplaceTable replaces the definition of table old (catalog, database and
// name of old) with t, which may have another name (ALTER TABLE ... RENAME
// TO) in the same database. Temporary tables stay in memory.
func (c *Catalog) ReplaceTable(old, t *Table) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	full := old.FullName()
	if _, ok := c.tables[full]; !ok {
		return fmt.Errorf("table %s: %w", full, ErrNotFound)
	}
	if t.FullName() != full {
		if _, ok := c.tables[t.FullName()]; ok {
			return fmt.Errorf("table %s: %w", t.FullName(), ErrExists)
		}
	}
	if err := c.put("tbl", t.FullName(), t, !t.Temporary); err != nil {
		return err
	}
	if t.FullName() != full {
		if !old.Temporary {
			if err := c.del("tbl", full); err != nil {
				return err
			}
		}
		delete(c.tables, full)
	}
	c.tables[t.FullName()] = t
	return nil
}
