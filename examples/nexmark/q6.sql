-- -------------------------------------------------------------------------------------------------
-- Query 6: Average Selling Price by Seller
-- -------------------------------------------------------------------------------------------------
-- What is the average selling price per seller for their last 10 closed auctions.
-- Shares the same ‘winning bids’ core as for Query4, and illustrates a specialized combiner.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_q6 (
  seller VARCHAR,
  avg_price  BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- TODO: this query is not supported yet in Flink SQL, because the OVER WINDOW operator doesn't
--  support to consume retractions.
--
-- Eddy runs it with its sorted OVER (an extension for an OVER over an updating input, decision
-- 0035). The suite's text is not valid SQL, so this file runs the query it means; what changed:
--  * the suite filters `WHERE rownum <= 1` in the SELECT that defines rownum, and selects A.id and
--    A.seller from a subquery whose columns are id and seller: here the ROW_NUMBER is computed in
--    the SELECT of the join (whose columns are id, seller, price and `dateTime`) and filtered one
--    level up, as q9 does;
--  * the winning bid is the highest price, then the earliest `dateTime` (q9's order), so that the
--    winner of an auction with two equal highest bids, and with it the seller's order, does not
--    depend on which bid the join emits first;
--  * Q selects id, seller, price and `dateTime` (not rownum), and the seller, a BIGINT, is cast to
--    the sink's VARCHAR.
INSERT INTO nexmark_q6
SELECT
    CAST(Q.seller AS VARCHAR),
    AVG(Q.price) OVER
        (PARTITION BY Q.seller ORDER BY Q.`dateTime` ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
FROM (
    SELECT id, seller, price, `dateTime`
    FROM (
        SELECT A.id, A.seller, B.price, B.`dateTime`,
            ROW_NUMBER() OVER (PARTITION BY A.id, A.seller ORDER BY B.price DESC, B.`dateTime` ASC) AS rownum
        FROM auction AS A,
            bid AS B
        WHERE A.id = B.auction
            and B.`dateTime` between A.`dateTime` and A.expires)
    WHERE rownum <= 1
) AS Q;
