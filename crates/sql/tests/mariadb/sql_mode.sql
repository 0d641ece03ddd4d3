select 'a' || 'b';
set sql_mode='PIPES_AS_CONCAT';
select 'a' || 'b';
set sql_mode=default;
select 'a' || 'b';
