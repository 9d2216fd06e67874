-- Relations over a file read by its quoted name (SPEC 1, 2.6, 2.9): the
-- export declares the file's table once, as for a declared stream, and
-- prints each query that reads it, a ranked view bounded where it is read,
-- a ranked WITH name and subquery, a plain view and the file itself.
CREATE VIEW cheapest AS
  SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price) AS rn FROM 'offers.csv';
SELECT item, price FROM cheapest WHERE rn = 1;

WITH ranked AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price DESC) AS rn FROM 'offers.csv')
SELECT item, price, rn FROM ranked WHERE rn <= 2;

SELECT item, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price) AS rn FROM 'offers.csv') AS t WHERE rn = 1;

CREATE VIEW dear AS SELECT item, price FROM 'offers.csv' WHERE price > 3;
SELECT * FROM dear;

SELECT item FROM 'offers.csv' WHERE price < 3;
