//! sql
