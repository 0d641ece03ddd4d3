//! basalt-bench: the side-by-side benchmark harness. It starts `basaltd` and MariaDB
//! on loopback with fresh data directories and comparable settings, runs the seed
//! posts' mysqlslap queries, sysbench OLTP scripts, durable commits, a connection
//! storm, a CPU-per-query count, many-table joins, the binary log's cost
//! (three systems) and its dump clients' latency in alternating rounds, and writes a Markdown
//! report with ratios (Basalt / MariaDB), a CSV of every sample and PNG charts.
//!
//! Performance is reported, never asserted.

pub mod alter;
pub mod app;
pub mod binlog;
pub mod binlog_dump;
pub mod charts;
pub mod cpu;
pub mod dump_client;
pub mod idle;
pub mod instruments;
pub mod joins;
pub mod load;
pub mod paced;
pub mod partitions;
pub mod plan;
pub mod proc;
pub mod report;
pub mod results;
pub mod routines;
pub mod runner;
pub mod servers;
pub mod slap;
pub mod stats;
pub mod sysbench;
pub mod tls;
pub mod tpch;
pub mod trigger_bench;
