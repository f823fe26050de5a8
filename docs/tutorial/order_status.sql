-- The upserting-changelog tutorial (Confluent's "How to emit an upserting changelog from a PTF") on Eddy's embedded default.
CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker';

CREATE TABLE order_events (
  order_id INT NOT NULL,
  event_type STRING,
  event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time
) DISTRIBUTED INTO 1 BUCKETS;

INSERT INTO order_events VALUES
  (101, 'PLACED',    TIMESTAMP '2026-08-01 09:00:00'),
  (102, 'PLACED',    TIMESTAMP '2026-08-01 09:00:02'),
  (103, 'PLACED',    TIMESTAMP '2026-08-01 09:00:03'),
  (101, 'FULFILLED', TIMESTAMP '2026-08-01 09:00:10'),
  (102, 'CANCELED',  TIMESTAMP '2026-08-01 09:00:15'),
  (101, 'SHIPPED',   TIMESTAMP '2026-08-01 09:00:30'),
  (101, 'DELIVERED', TIMESTAMP '2026-08-01 09:01:00');

CREATE TABLE order_status (
    PRIMARY KEY (order_id) NOT ENFORCED
) DISTRIBUTED INTO 1 BUCKETS
WITH ('changelog.mode' = 'upsert') AS
SELECT
    order_id,
    status
FROM OrderStatusTracker(
    input => TABLE order_events PARTITION BY order_id
);

SET 'sql-client.execution.result-mode' = 'table';
SELECT * FROM order_status;

SET 'sql-client.execution.result-mode' = 'changelog';
SELECT * FROM order_status;
