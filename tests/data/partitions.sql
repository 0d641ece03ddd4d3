# Partitioned tables: statements compared with MariaDB 10.11 (tests/partitions.rs).
create table r (a int primary key, b varchar(10), key kb (b)) partition by range (a) (partition p0 values less than (10), partition p1 values less than (100), partition p2 values less than maxvalue)
show create table r
insert into r values (1,'x'),(5,'y'),(10,'z'),(50,'x'),(100,'w'),(1000,'v'),(-5,'u')
select * from r order by a
select * from r where a = 50
select * from r where a between 5 and 60 order by a
select b, count(*) from r group by b order by b
select * from r where b = 'x' order by a
select * from r order by b, a
select * from r order by a desc limit 3
insert into r values (50,'dup')
update r set a = 500 where a = 5
select * from r order by a
update r set b = 'q' where a < 100
select * from r order by a
delete from r where a >= 100
select * from r order by a
create table l (a int, b int) partition by list (a) (partition x values in (1,2,null), partition y values in (3) comment 'c')
show create table l
insert into l values (1,1),(2,2),(null,3),(3,4)
insert into l values (4,5)
select * from l order by b
update l set a = 7 where b = 1
select * from l order by b
create table h (a int, b varchar(10), key(b)) partition by hash(a) partitions 3
show create table h
insert into h values (1,'a'),(2,'b'),(3,'c'),(4,'d'),(null,'e'),(-7,'f')
select * from h order by b
select * from h where a = 4
create table lh (a int not null, b int, primary key (a)) partition by linear hash(a) partitions 5
show create table lh
insert into lh values (1,1),(2,2),(7,7),(12,12)
select * from lh order by a
create table k (a int primary key, b date) partition by key() partitions 2
show create table k
insert into k values (1,'2020-01-01'),(2,'2021-02-03'),(3,null)
select * from k order by a
create table rc (a int, d date) partition by range columns(d,a) (partition p0 values less than ('2020-01-01', 5), partition p1 values less than (maxvalue, maxvalue))
show create table rc
insert into rc values (1,'2019-05-05'),(9,'2020-01-01'),(3,'2020-01-01'),(4,'2030-01-01')
select * from rc order by d, a
create table ry (id int, d date) partition by range (year(d)) (partition p0 values less than (2000), partition p1 values less than (2010))
show create table ry
insert into ry values (1,'1999-12-31'),(2,'2005-06-01')
insert into ry values (3,'2015-01-01')
select * from ry order by id
create table bad1 (a int primary key, b int) partition by hash(b) partitions 2
create table bad2 (a int, b int, unique key (a)) partition by hash(b) partitions 2
create table bad3 (a int) partition by range (a) (partition p0 values less than (10), partition p1 values less than (5))
create table bad4 (a int) partition by range (a) (partition p0 values less than maxvalue, partition p1 values less than (5))
create table bad5 (a int) partition by list (a) (partition p0 values in (1,2), partition p1 values in (2))
create table bad6 (a int) partition by range (a) (partition p0 values less than (1), partition p0 values less than (5))
create table bad7 (a int) partition by hash (a) (partition p0 values less than (1))
create table bad8 (a int) partition by range (a) (partition p0)
create table bad9 (a int) partition by hash (nosuch) partitions 2
create table bad10 (a varchar(5)) partition by hash (a) partitions 2
# Partition selection, EXPLAIN PARTITIONS and information_schema.PARTITIONS.
select * from r partition (p1) order by a
select * from r partition (p0, p2) order by a
insert into r partition (p0) values (50, 'no')
select * from r partition (nosuch)
select * from np partition (p0)
insert into r partition (p2) values (777, 'ok')
~ explain partitions select * from r where a = 50
~ explain partitions select * from r where a < 20
~ select partition_name, partition_ordinal_position, partition_method, partition_expression, partition_description, partition_comment, nodegroup from information_schema.partitions where table_schema = 'pt' and table_name in ('r','l','h','lh','k','rc','ry') order by table_name, partition_ordinal_position
~ select partition_name, partition_method from information_schema.partitions where table_schema = 'pt' and table_name = 'np'
# ALTER TABLE partition management.
create table a1 (a int primary key, b int) partition by range (a) (partition p0 values less than (10), partition p1 values less than (100))
insert into a1 values (1,1),(20,2),(50,3),(99,4)
alter table a1 add partition (partition p2 values less than (50))
alter table a1 add partition (partition p1 values less than (500))
alter table a1 add partition (partition p2 values less than (200), partition p3 values less than (300))
show create table a1
insert into a1 values (150,5),(250,6)
insert into a1 values (350,7)
alter table a1 drop partition nosuch
alter table a1 drop partition p0, p1, p2, p3
alter table a1 coalesce partition 1
alter table a1 truncate partition nosuch
alter table a1 reorganize partition p0 into (partition x values less than (20))
alter table a1 reorganize partition p1 into (partition p1a values less than (50), partition p1b values less than (100))
show create table a1
select * from a1 partition (p1a) order by a
select * from a1 partition (p1b) order by a
alter table a1 drop partition p0
select * from a1 order by a
alter table a1 truncate partition p1a
select * from a1 order by a
alter table a1 truncate partition all
select count(*) from a1
insert into a1 values (30,1),(60,2),(160,3)
alter table a1 remove partitioning
show create table a1
select * from a1 order by a
alter table np remove partitioning
alter table np drop partition p0
alter table a1 partition by hash (a) partitions 3
show create table a1
select * from a1 partition (p0) order by a
alter table a1 add partition partitions 2
show create table a1
select * from a1 partition (p4) order by a
alter table a1 coalesce partition 3
show create table a1
alter table a1 drop partition p0
alter table a1 coalesce partition 2
alter table a1 add column c int, partition by key (a) partitions 2
show create table a1
alter table a1 add unique key (b)
alter table a1 drop primary key
# LIKE, temporary tables and foreign keys.
create temporary table tt like r
create table child (x int, foreign key (x) references r(a))
create table cl like r
show create table cl
select * from cl
~ select table_name, create_options from information_schema.tables where table_schema = 'pt' order by 1
