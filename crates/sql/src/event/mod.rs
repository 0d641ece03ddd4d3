//! Events: schedules ([`schedule`]), the scheduler thread that runs them
//! ([`scheduler`]), and one run of an event's body in a session of its own
//! ([`run`]). CREATE / ALTER / DROP EVENT are in `session::event`.

pub mod run;
pub mod schedule;
pub mod scheduler;

pub use scheduler::Scheduler;
