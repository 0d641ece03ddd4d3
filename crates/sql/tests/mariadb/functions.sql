select substring_index('a.b.c', '.', 2), substring_index('a.b.c', '.', -1), find_in_set('b', 'a,b,c'), elt(2, 'x', 'y'), format(1234567.891, 2), quote("it's"), bin(10), oct(8);
select to_days('2024-03-05'), from_days(739315), weekday('2024-03-05'), dayname('2024-03-05'), monthname('2024-03-05'), last_day('2024-02-10');
select timestampdiff(second, '2024-01-01 00:00:00', '2024-01-01 01:00:05'), timestampdiff(month, '2024-01-31', '2024-03-30'), timestampdiff(day, '2024-03-05', '2024-01-01'), timestampdiff(year, '2000-05-05', '2024-05-04');
select length(uuid());
