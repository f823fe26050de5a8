-- GROUP BY over a stream of orders: revenue and order counts per region,
-- kept up to date as orders arrive, and written into an upsert table.
CREATE TABLE orders (
  order_id INT,
  region STRING,
  customer STRING,
  amount DECIMAL(10, 2)
) DISTRIBUTED INTO 1 BUCKETS;

INSERT INTO orders VALUES
  (1, 'emea', 'ann', 20.00),
  (2, 'emea', 'bob', 5.50),
  (3, 'apac', 'chen', 12.25),
  (4, 'amer', 'dana', 40.00),
  (5, 'emea', 'ann', 7.00);

CREATE TABLE revenue (region STRING PRIMARY KEY NOT ENFORCED, orders BIGINT, customers BIGINT, revenue DECIMAL(38, 2))
  DISTRIBUTED INTO 1 BUCKETS;

INSERT INTO revenue
SELECT region, COUNT(*), COUNT(DISTINCT customer), SUM(amount) FROM orders GROUP BY region;

INSERT INTO orders VALUES (6, 'apac', 'eve', 3.75);

SELECT * FROM revenue;

SET 'sql-client.execution.result-mode' = 'changelog';
SELECT region, COUNT(*) AS orders FROM orders GROUP BY region HAVING COUNT(*) > 1;
