-- Joins: orders enriched with their customer (INNER), customers with
-- their order totals including those without orders (LEFT JOIN of an
-- aggregate), and customers that never ordered (NOT EXISTS).
CREATE TABLE customers (id INT, name STRING, country STRING);
CREATE TABLE orders (order_id INT, customer_id INT, amount INT);

INSERT INTO customers VALUES (1, 'ann', 'DE'), (2, 'bob', 'FR'), (3, 'chen', 'CN');
INSERT INTO orders VALUES (100, 1, 30), (101, 1, 12), (102, 2, 7), (103, 9, 1);

SELECT o.order_id, c.name, o.amount FROM orders o JOIN customers c ON o.customer_id = c.id;

SELECT c.name, t.total
FROM customers c LEFT JOIN (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id) t
  ON c.id = t.customer_id;

SELECT name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id);
