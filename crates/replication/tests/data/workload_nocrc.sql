-- The workload whose binary log is golden_nocrc.bin: run after
-- `SET GLOBAL binlog_checksum = NONE` (a file without checksums), with session
-- settings that add status variables to the QUERY events, and more column types.
SET NAMES utf8mb4;
SET time_zone = '+00:00';
USE test;
SET foreign_key_checks = 0, auto_increment_increment = 2, lc_time_names = 'de_DE';
CREATE TABLE more (id INT PRIMARY KEY, z INT(5) UNSIGNED ZEROFILL,
  v3 VARCHAR(10) CHARACTER SET utf8mb3, a CHAR(3) CHARACTER SET ascii,
  big_set SET('a','b','c','d','e','f','g','h','i'), t4 TIME(4), t6 TIME(6),
  ts6 TIMESTAMP(6) NULL, dt3 DATETIME(3), dt1 DATETIME(1), y YEAR, d DECIMAL(20,9),
  bi BINARY(3), ub TINYINT UNSIGNED, f FLOAT);
SET foreign_key_checks = 1, auto_increment_increment = 1, lc_time_names = 'en_US';
SET autocommit = 0;
INSERT INTO more VALUES (1, 42, 'ü', 'ab', 'a,i', '-12:00:00.1234', '-01:02:03.000004',
  '2001-02-03 04:05:06.789012', '2020-01-01 10:00:00.5', '2020-01-01 10:00:00.1', 0,
  -12345678901.234567890, 'a', 200, -0.25);
UPDATE more SET ub = 201;
COMMIT;
SET autocommit = 1;
FLUSH BINARY LOGS;
