# JSON_TABLE compared between Basalt and MariaDB 10.11 by tests/json_table.rs:
# values, column names and types, warnings and errors. One statement a line;
# "~ " skips column lengths and error messages.
create table t1 (id int primary key, j text)
insert into t1 values (1, '[1,2]'), (2, '[3]'), (3, null), (4, '[]'), (5, '{"k":[7,8,9]}')
create table docs (id int primary key, doc text)
insert into docs values (1, '{"name":"ann","tags":["a","b"],"items":[{"sku":"x1","qty":2,"opts":[{"c":"red"},{"c":"blue"}]},{"sku":"x2","qty":"many"}]}'), (2, '{"name":"bob","tags":[],"items":[]}'), (3, '{"name":"cy","items":[{"sku":"z","qty":[1]}]}')
# columns typed as declared
? select * from json_table('[{"a":1,"b":"x"},{"a":"zz","b":[1]},{"c":3}]', '$[*]' columns (id for ordinality, a int path '$.a', b varchar(10) path '$.b', c json path '$.c', e int exists path '$.c', d decimal(5,2) path '$.a' default '9.5' on empty)) as jt
select * from json_table('[1,2]', '$[*]' columns (a int path '$')) jt
select * from json_table('[{"a":1.5}]', '$[*]' columns (a int path '$.a', b double path '$.a', c float path '$.a', d bigint unsigned path '$.a', e bit(3) path '$.a', f year path '$.a', h text path '$.a', i blob path '$.a')) t
select t.* from json_table('[{"x": "é"}]', '$[*]' columns (a varchar(1) path '$.x', b char(3) path '$.x', c varbinary(4) path '$.x', d binary(3) path '$.x')) t
select * from json_table('[{"a":"2020-01-02"}]', '$[*]' columns (a date path '$.a', b datetime path '$.a')) t
select * from json_table('[{"a":true, "b":null, "c":false}]', '$[*]' columns (a int path '$.a', b int path '$.b', c varchar(5) path '$.a', d varchar(5) path '$.b', e decimal(3,1) path '$.c')) t
select * from json_table('[{"a":"abcdefghijklmnop"}]', '$[*]' columns (a varchar(5) path '$.a')) t
select * from json_table('[{"a":300}, {"a":-300}]', '$[*]' columns (a tinyint path '$.a', b tinyint unsigned path '$.a')) t
select * from json_table('[{"a":[1,2]}]', '$[*]' columns (a int path '$.a', b varchar(20) path '$.a', c json path '$.a')) t
select * from json_table('["x", {"a":"é\\n"}]', '$[*]' columns (a json path '$', b varchar(10) path '$.a', c json path '$.a')) t
select * from json_table('"x"', '$' columns (a varchar(3) path '$')) t
select * from json_table('{"a":1}', '$' columns (a int path '$.a')) t
select * from json_table('{"a":1}', '$.a' columns (a int path '$')) t
select json_table from json_table('[1]', '$[*]' columns (json_table int path '$')) t
# ORDINALITY, EXISTS, NESTED PATH
select * from json_table('[]', '$[*]' columns (o for ordinality)) t
select * from json_table('[1, [2, 3], {"a": 4}]', '$[*]' columns (a int exists path '$[0]', b int exists path '$.a', c varchar(3) exists path '$')) t
select * from json_table('{"a":[1,2],"b":[3]}', '$' columns (nested path '$.a[*]' columns (x int path '$'), nested path '$.b[*]' columns (y int path '$'))) t
select * from json_table('[{"a":1,"b":[10,20]},{"a":2,"b":[]}]', '$[*]' columns (id for ordinality, a int path '$.a', nested path '$.b[*]' columns (bid for ordinality, b int path '$'))) t
select * from json_table('[1,2]', '$[*]' columns (o for ordinality, nested path '$' columns (o2 for ordinality))) t
select * from json_table('{"a": {"b": [1, 2]}}', '$.a' columns (nested path '$.b[*]' columns (x int path '$'), y json path '$.b')) t
select * from json_table('[{"a":[{"b":[1,2]},{"b":[3]}]},{"a":[]}]', '$[*]' columns (o for ordinality, nested path '$.a[*]' columns (p for ordinality, nested path '$.b[*]' columns (q for ordinality, v int path '$')))) t
? select d.id, jt.* from docs d, json_table(d.doc, '$' columns (name varchar(10) path '$.name', nested path '$.tags[*]' columns (tag varchar(5) path '$'), nested path '$.items[*]' columns (sku varchar(5) path '$.sku', qty int path '$.qty' default '-1' on error, nested path '$.opts[*]' columns (color varchar(8) path '$.c')))) jt order by d.id, jt.tag, jt.sku, jt.color
# ON EMPTY / ON ERROR
? select * from json_table('[{"a":"x"}]', '$[*]' columns (a int path '$.a' default '5' on error)) t
? select * from json_table('[{"a":"x"}]', '$[*]' columns (a int path '$.a' error on error)) t
select * from json_table('[{"a":"x"}]', '$[*]' columns (a int path '$.b' error on empty)) t
select * from json_table('[{"a":"x"}]', '$[*]' columns (a int path '$.b' null on empty default '3' on error)) t
select * from json_table('[{"a":"x"}]', '$[*]' columns (a int path '$.b' default '3' on error null on empty)) t
select * from json_table('[{"a":1}]', '$[*]' columns (a int path '$.a' default 'x' on empty)) t
select * from json_table('[{"a":1}]', '$[*]' columns (a int path '$.b' default 1 on empty)) t
select * from json_table('[{"a":[1]}]', '$[*]' columns (a int path '$.a' error on error)) t
select * from json_table('[{"a":[1]}]', '$[*]' columns (a int path '$.a' default '7' on error)) t
select * from json_table('[{"a":[1]}]', '$[*]' columns (a varchar(3) path '$.a' default 'abcdef' on error)) t
? select * from json_table('[{"a":1}]', '$[*]' columns (a int path '$.b' default 'abc' on empty)) t
select * from json_table('[{"a":1},{"a":2}]', '$[*]' columns (a int path '$[*]')) t
select * from json_table('[{"a":1},{"a":2}]', '$[*]' columns (a int path '$.*' default '5' on error)) t
select * from json_table('[1,2]', '$[*]' columns (a int path '$', b int path '$' error on error)) t where a > 1
# the document from the tables to the left (lateral), joins, subqueries, views
select t1.id, jt.* from t1, json_table(t1.j, '$[*]' columns (v int path '$')) jt order by t1.id, jt.v
select t1.id, jt.* from t1 left join json_table(t1.j, '$[*]' columns (v int path '$')) jt on true order by t1.id, jt.v
select t1.id, jt.* from t1 join json_table(t1.j, '$.k[*]' columns (o for ordinality, v int path '$')) jt order by jt.o
select t1.id, count(jt.v), sum(jt.v) from t1 left join json_table(t1.j, '$[*]' columns (v int path '$')) jt on jt.v > 1 group by t1.id order by t1.id
select * from t1, json_table(t1.j, '$[*]' columns (id int path '$')) t2 where t2.id = t1.id
select jt.a, t1.id from t1 join json_table('[1,2,3]', '$[*]' columns (a int path '$')) jt on jt.a = t1.id order by jt.a
select * from t1 where id in (select a from json_table('[1,3]', '$[*]' columns (a int path '$')) x) order by id
select t1.id, (select sum(v) from json_table(t1.j, '$[*]' columns (v int path '$')) x) s from t1 order by id
select t1.id from t1 where exists (select 1 from json_table(t1.j, '$[*]' columns (v int path '$')) x where v = 3)
select * from (select * from json_table('[1,2,3]', '$[*]' columns (a int path '$')) t) d where a <> 2 order by a
select * from json_table('[1,2]', '$[*]' columns (a int path '$')) t, json_table('[3,4]', '$[*]' columns (b int path '$')) u order by a, b
select * from json_table(concat('[', '1,2', ']'), '$[*]' columns (a int path '$')) t
select * from json_table((select j from t1 where id=1), '$[*]' columns (id int path '$')) t2
select * from t1 natural join json_table('[{"id":1}]', '$[*]' columns (id int path '$.id')) t2
select a from json_table('[1]', '$[*]' columns (a int path '$')) as t where t.a = 1
select * from json_table('[1]', '$[*]' columns (a int path '$')) t for update
create view v1 as select t1.id, jt.v from t1, json_table(t1.j, '$[*]' columns (v int path '$')) jt
select * from v1 order by id, v
create view v2 as select * from json_table('[{"a":"x","n":[1.5]}]', '$[*]' columns (o for ordinality, a varchar(10) path '$.a' default 'x' on empty default '7' on error, b json path '$.b' null on empty error on error, e int exists path '$.c', nested path '$.n[*]' columns (n decimal(5,2) path '$' error on empty), c bigint unsigned path '$.c' default 5 on empty)) t
select * from v2
drop view v1, v2
# bad input
select * from json_table('not json', '$[*]' columns (a int path '$')) t
select * from json_table('[1', '$[*]' columns (a int path '$')) t
select * from json_table('[1]', 'bad' columns (a int path '$')) t
select * from json_table('[1]', '$' columns (a int path 'bad')) t
select * from json_table(null, '$[*]' columns (a int path '$')) t
select * from json_table('[1,2]', '$[*]' columns (a int path '$'))
select * from json_table('[1]', '$[*]' columns (a int path '$', a int path '$')) t
select * from json_table('[1]', '$[*]' columns (a int path '$', nested path '$' columns (a int path '$'))) t
select * from json_table('[1]', '$[*]' columns (a int path '$')) t1, t1
select * from json_table(t1.j, '$[*]' columns (v int path '$')) jt, t1
select * from json_table(jt2.j, '$[*]' columns (v int path '$')) jt, json_table('[{"j":"[1]"}]', '$[*]' columns (j text path '$.j')) jt2
select * from json_table(nosuch, '$[*]' columns (v int path '$')) jt
select * from json_table('[1]', '$[*]' columns (a int)) t
select * from json_table('[1]', '$[*]' columns ()) t
select * from json_table('[1]' columns (a int path '$')) t
select * from json_table('[1]', concat('$', '[*]') columns (a int path '$')) t
select * from json_table('[1]', '$[*]' columns (a int path '$' default 1+1 on empty)) t
select * from json_table('[1]', '$[*]' columns (a int path '$')) t(x)
select * from json_table('[1]', '$[*]' columns (a int path 1)) t
select * from json_table('[{"a":1}]', '$[*]' columns (g enum('a','b') path '$.a')) t
drop table t1, docs
