-- Rankings and time over a stream of bids (decision 0026): OVER aggregates,
-- Top-N, deduplication, ORDER BY ... LIMIT, an interval join and an
-- event-time temporal join.
CREATE TABLE bids (
  auction INT,
  bidder STRING,
  price INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) DISTRIBUTED INTO 1 BUCKETS;

CREATE TABLE auctions (
  id INT,
  opened TIMESTAMP(3),
  WATERMARK FOR opened AS opened
) DISTRIBUTED INTO 1 BUCKETS;

CREATE TABLE fees (
  bidder STRING PRIMARY KEY NOT ENFORCED,
  pct INT,
  since TIMESTAMP(3),
  WATERMARK FOR since AS since
) DISTRIBUTED INTO 1 BUCKETS;

INSERT INTO auctions VALUES
  (1, TIMESTAMP '2026-05-01 10:00:00'),
  (2, TIMESTAMP '2026-05-01 10:00:30');

INSERT INTO fees VALUES
  ('ann', 5, TIMESTAMP '2026-05-01 09:00:00'),
  ('bob', 3, TIMESTAMP '2026-05-01 09:00:00'),
  ('ann', 2, TIMESTAMP '2026-05-01 10:00:30');

INSERT INTO bids VALUES
  (1, 'ann', 10, TIMESTAMP '2026-05-01 10:00:10'),
  (1, 'bob', 12, TIMESTAMP '2026-05-01 10:00:20'),
  (2, 'ann', 7, TIMESTAMP '2026-05-01 10:00:40'),
  (1, 'ann', 15, TIMESTAMP '2026-05-01 10:00:50'),
  (2, 'bob', 9, TIMESTAMP '2026-05-01 10:01:10'),
  (1, 'bob', 11, TIMESTAMP '2026-05-01 10:02:00');

-- The two highest bids per auction, with their rank.
SELECT * FROM (
  SELECT auction, bidder, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bids
) WHERE rn <= 2;

-- Each bidder's last bid per auction.
SELECT auction, bidder, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction, bidder ORDER BY ts DESC) AS rn FROM bids
) WHERE rn = 1;

-- The three highest bids overall.
SELECT auction, bidder, price FROM bids ORDER BY price DESC LIMIT 3;

-- The sum and the highest of the last two bids, per auction (a named window
-- and an inline one with the same frame).
SELECT auction, price,
  SUM(price) OVER w AS total,
  MAX(price) OVER (PARTITION BY auction ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS best_of_two
FROM bids WINDOW w AS (PARTITION BY auction ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);

-- The bids of the first minute of their auction (an interval join).
SELECT a.id, b.bidder, b.price
FROM auctions a JOIN bids b ON a.id = b.auction
  AND b.ts BETWEEN a.opened AND a.opened + INTERVAL '1' MINUTE;

-- Each bid with the fee valid at its time (an event-time temporal join).
SELECT b.auction, b.bidder, b.price, f.pct
FROM bids AS b JOIN fees FOR SYSTEM_TIME AS OF b.ts AS f ON b.bidder = f.bidder;

-- ORDER BY any column of a script's result: the table is sorted when it is
-- printed (without LIMIT on a stream, only a time attribute can be sorted).
SELECT bidder, COUNT(*) AS bids, MAX(price) AS best FROM bids GROUP BY bidder ORDER BY best DESC, bidder;
