-- The workload whose binary log is golden_gen.bin (binlog_checksum=CRC32): generated
-- and invisible columns, INSERTs that name some columns only, under MINIMAL and
-- NOBLOB, and a table whose UNIQUE NOT NULL key stands in for a primary key.
USE test;
DROP TABLE IF EXISTS gen, uk;
SET binlog_row_image = MINIMAL;
CREATE TABLE gen (id INT PRIMARY KEY, a INT, v INT AS (a + 1) VIRTUAL,
  p INT AS (a * 2) PERSISTENT, h INT INVISIBLE DEFAULT 9, bl BLOB);
INSERT INTO gen (id, a) VALUES (1, 10);
UPDATE gen SET a = 11;
SET binlog_row_image = NOBLOB;
INSERT INTO gen (id) VALUES (2);
UPDATE gen SET a = 12 WHERE id = 1;
SET binlog_row_image = FULL;
INSERT INTO gen (id, a) VALUES (3, 30);
UPDATE gen SET a = 31 WHERE id = 3;
CREATE TABLE uk (a INT NOT NULL, b INT, UNIQUE KEY (a));
SET binlog_row_image = MINIMAL;
INSERT INTO uk VALUES (1, 2);
UPDATE uk SET b = 3;
DELETE FROM uk;
SET binlog_row_image = FULL;
FLUSH BINARY LOGS;
