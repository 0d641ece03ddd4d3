create table a (id int primary key auto_increment, name varchar(20) not null default 'x', grp int, d decimal(6,2), t text, unique key un (name), key kg (grp, d));
select table_name, table_type, engine, table_collation from information_schema.tables where table_schema = 'cmpdb';
select column_name, ordinal_position, column_default, is_nullable, data_type, character_maximum_length, character_octet_length, numeric_precision, numeric_scale, character_set_name, collation_name, column_type, column_key, extra from information_schema.columns where table_schema = 'cmpdb' order by ordinal_position;
select index_name, non_unique, seq_in_index, column_name, nullable from information_schema.statistics where table_schema = 'cmpdb' order by index_name, seq_in_index;
select constraint_name, constraint_type from information_schema.table_constraints where table_schema = 'cmpdb' order by constraint_name;
select constraint_name, column_name, ordinal_position from information_schema.key_column_usage where table_schema = 'cmpdb' order by constraint_name, ordinal_position;
select schema_name from information_schema.schemata where schema_name = 'cmpdb';
