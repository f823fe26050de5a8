-- Windowed aggregation over a stream of page views with event time: the
-- window table functions TUMBLE, HOP and SESSION (Flink's syntax), a window
-- join, and the legacy GROUP BY TUMBLE(...). Windows fire when the
-- watermark (the latest view time minus 5 seconds) passes their end; each
-- result row is final (insert-only).
CREATE TABLE views (
  page STRING,
  usr STRING,
  ms INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) DISTRIBUTED INTO 1 BUCKETS;

INSERT INTO views VALUES
  ('home',  'ann', 120, TIMESTAMP '2026-08-01 09:00:01'),
  ('home',  'bob',  80, TIMESTAMP '2026-08-01 09:00:07'),
  ('cart',  'ann', 300, TIMESTAMP '2026-08-01 09:00:09'),
  ('home',  'ann',  60, TIMESTAMP '2026-08-01 09:00:04'),
  ('cart',  'bob', 150, TIMESTAMP '2026-08-01 09:00:13'),
  ('home',  'eve',  90, TIMESTAMP '2026-08-01 09:00:21'),
  ('pay',   'ann', 500, TIMESTAMP '2026-08-01 09:00:24'),
  ('home',  'bob',  70, TIMESTAMP '2026-08-01 09:00:40');

-- Views per page and 10-second window.
SELECT page, COUNT(*) AS views, SUM(ms) AS total_ms, window_start, window_end
FROM TABLE(TUMBLE(TABLE views, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY page, window_start, window_end;

-- Distinct users over the last 20 seconds, every 10 seconds (named arguments).
SELECT window_start, window_end, COUNT(DISTINCT usr) AS users
FROM TABLE(HOP(DATA => TABLE views, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL '10' SECOND, SIZE => INTERVAL '20' SECOND))
GROUP BY window_start, window_end;

-- Sessions per user: views less than 10 seconds apart.
SELECT usr, COUNT(*) AS views, window_start, window_end
FROM TABLE(SESSION(TABLE views PARTITION BY usr, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY usr, window_start, window_end;

-- The legacy group window syntax.
SELECT page, TUMBLE_START(ts, INTERVAL '10' SECOND) AS ws, COUNT(*) AS views
FROM views
GROUP BY page, TUMBLE(ts, INTERVAL '10' SECOND);

-- A window join: per window, the home views next to the other pages' views.
SELECT H.window_start, H.n AS home, O.n AS other
FROM (SELECT COUNT(*) AS n, window_start, window_end FROM TABLE(TUMBLE(TABLE views, DESCRIPTOR(ts), INTERVAL '10' SECOND))
      WHERE page = 'home' GROUP BY window_start, window_end) H
LEFT JOIN (SELECT COUNT(*) AS n, window_start, window_end FROM TABLE(TUMBLE(TABLE views, DESCRIPTOR(ts), INTERVAL '10' SECOND))
      WHERE page <> 'home' GROUP BY window_start, window_end) O
ON H.window_start = O.window_start AND H.window_end = O.window_end;
