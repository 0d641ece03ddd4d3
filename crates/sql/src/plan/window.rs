//! Window functions as the executor runs them: the distinct window
//! specifications of one SELECT (PARTITION BY / ORDER BY), and each window
//! function call with its specification, frame and arguments.
//!
//! The window stage sits between the row source (joined rows after WHERE and a
//! HAVING without GROUP BY, or the groups after GROUP BY and HAVING) and the
//! projection. Its input rows are `width` columns wide; call `i` writes its value
//! into column `width + i`, where the projection, DISTINCT and ORDER BY read it.

use crate::expr::Expr;
use crate::plan::AggCall;
use basalt_common::{Collation, Value};

#[derive(Clone, Debug)]
pub struct WindowPlan {
    /// Width of the input rows; call `i`'s value lands in column `width + i`.
    pub width: usize,
    /// Distinct specifications: the rows are sorted once per specification.
    pub specs: Vec<WinSpec>,
    pub calls: Vec<WinCall>,
}

/// PARTITION BY and ORDER BY of a window (named windows resolved).
#[derive(Clone, Debug, PartialEq)]
pub struct WinSpec {
    pub partition: Vec<(Expr, Collation)>,
    /// (expression, descending, collation).
    pub order: Vec<(Expr, bool, Collation)>,
}

#[derive(Clone, Debug)]
pub struct WinCall {
    pub func: WinFunc,
    /// Arguments over the input row (the aggregate's argument is in its call).
    pub args: Vec<Expr>,
    /// Index into [`WindowPlan::specs`].
    pub spec: usize,
    pub frame: Frame,
}

#[derive(Clone, Debug)]
pub enum WinFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// NTILE(n): `args[0]` is the bucket count.
    Ntile,
    /// LAG / LEAD (expr [, offset]); LEAD is stored as `Lag` with `lead` set.
    Lag {
        lead: bool,
    },
    FirstValue,
    LastValue,
    /// NTH_VALUE(expr, n): `args[1]` is n, evaluated per row.
    NthValue,
    /// An aggregate over the frame.
    Agg(AggCall),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameUnits {
    Rows,
    Range,
}

/// One end of a frame; offsets are constants checked by the binder (a
/// non-negative integer for ROWS, a number for RANGE).
#[derive(Clone, Debug, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(Value),
    CurrentRow,
    Following(Value),
    UnboundedFollowing,
}

/// The frame of a call; without a frame clause RANGE BETWEEN UNBOUNDED
/// PRECEDING AND CURRENT ROW (every row a peer of every other without ORDER BY,
/// so the whole partition).
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub units: FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
}

impl Default for Frame {
    fn default() -> Self {
        Frame {
            units: FrameUnits::Range,
            start: FrameBound::UnboundedPreceding,
            end: FrameBound::CurrentRow,
        }
    }
}
