-- Views, WITH, and set operations over two lists of products.
CREATE TABLE shop_a (sku STRING, price INT);
CREATE TABLE shop_b (sku STRING, price INT);
INSERT INTO shop_a VALUES ('apple', 3), ('pear', 4), ('fig', 9);
INSERT INTO shop_b VALUES ('apple', 2), ('kiwi', 5), ('fig', 9);

CREATE VIEW cheap AS SELECT sku FROM shop_a WHERE price < 5 UNION SELECT sku FROM shop_b WHERE price < 5;

SELECT * FROM cheap;
SELECT sku FROM shop_a INTERSECT SELECT sku FROM shop_b;
SELECT sku FROM shop_a EXCEPT SELECT sku FROM shop_b;

WITH prices AS (SELECT sku, price FROM shop_a UNION ALL SELECT sku, price FROM shop_b)
SELECT sku, MIN(price) AS best, MAX(price) AS worst FROM prices GROUP BY sku;
