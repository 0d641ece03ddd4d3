create table p (id int primary key, name varchar(30), key (name));
insert into p values (1, 'Alice'), (2, 'alicia'), (3, 'bob'), (4, 'Albert'), (5, 'al%x'), (6, null), (7, 'AL'), (8, 'zed');
select id, name from p where name like 'al%' order by id;
select id, name from p where name like 'AL%' order by name, id;
select id, name from p where name like 'al\%%' order by id;
select id, name from p where name like '%e%' order by id;
select id, name from p where name like 'al_' order by id;
select id from p where name like 'z%';
