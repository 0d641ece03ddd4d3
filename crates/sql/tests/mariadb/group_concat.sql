create table a (id int primary key, name varchar(20), grp int);
insert into a values (1, 'one', 1), (2, 'two', 1), (3, 'three', 2), (4, 'four', null), (5, 'five', 1);
select grp, group_concat(name order by name) from a group by grp;
select grp, group_concat(name order by id desc separator '|') from a group by grp;
select group_concat(distinct grp order by grp desc) from a;
select group_concat(name) from a where id > 100;
