CREATE STREAM bids (k VARCHAR, p BIGINT, ts TIMESTAMP(3)) WITH ('connector'='file','path'='bids.csv','format'='csv');
CREATE STREAM users (k VARCHAR, name VARCHAR) WITH ('connector'='file','path'='u.csv','format'='csv');
CREATE VIEW v AS SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM bids;
SELECT u.name, v.p FROM users u JOIN v ON u.k = v.k WHERE v.rn <= 1;
SELECT k, p FROM v WHERE rn = 1;
SHOW VIEWS;
SELECT * FROM v;
