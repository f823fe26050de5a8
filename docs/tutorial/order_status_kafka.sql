-- The upserting-changelog tutorial, Kafka variant: the seed's Flink SQL against a Kafka cluster and a
-- schema registry. Start both locally with `eddy dev kafka` (127.0.0.1:9092 and http://127.0.0.1:8081),
-- or change the two addresses to a real cluster's.
CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker';

CREATE TABLE order_events (
    order_id INT,
    event_type STRING,
    event_time TIMESTAMP(3),
    `partition` BIGINT METADATA VIRTUAL,
    `offset` BIGINT METADATA VIRTUAL,
    WATERMARK FOR event_time AS event_time
) WITH (
    'connector' = 'kafka',
    'topic' = 'order-events',
    'properties.bootstrap.servers' = '127.0.0.1:9092',
    'scan.startup.mode' = 'earliest-offset',
    'key.format' = 'raw',
    'key.fields' = 'order_id',
    'value.format' = 'avro-confluent',
    'value.avro-confluent.url' = 'http://127.0.0.1:8081',
    'value.fields-include' = 'EXCEPT_KEY'
);

INSERT INTO order_events VALUES
    (101, 'PLACED',    TIMESTAMP '2026-08-01 09:00:00'),
    (102, 'PLACED',    TIMESTAMP '2026-08-01 09:00:02'),
    (103, 'PLACED',    TIMESTAMP '2026-08-01 09:00:03'),
    (101, 'FULFILLED', TIMESTAMP '2026-08-01 09:00:10'),
    (102, 'CANCELED',  TIMESTAMP '2026-08-01 09:00:15'),
    (101, 'SHIPPED',   TIMESTAMP '2026-08-01 09:00:30'),
    (101, 'DELIVERED', TIMESTAMP '2026-08-01 09:01:00');

CREATE TABLE order_status (
    order_id INT,
    status STRING,
    PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
    'connector' = 'upsert-kafka',
    'topic' = 'order-status',
    'properties.bootstrap.servers' = '127.0.0.1:9092',
    'key.format' = 'raw',
    'value.format' = 'avro-confluent',
    'value.avro-confluent.url' = 'http://127.0.0.1:8081'
);

INSERT INTO order_status
SELECT order_id, status
FROM OrderStatusTracker(
    input => TABLE order_events PARTITION BY order_id
);

SET 'sql-client.execution.result-mode' = 'table';
SELECT * FROM order_status;

SET 'sql-client.execution.result-mode' = 'changelog';
SELECT * FROM order_status;
