//! tokio's idiom for the array searches (`sls`, `dls-and`/`dls-or`, `cs`): the rows split
//! into blocks, a task per block, each testing a `CancellationToken` before every row and
//! cancelling it once the search is resolved.
//!
//! The tasks never await inside their loop (the search is compute-bound), so the token is
//! polled with `is_cancelled()`, as a tokio user writes it; `token.cancelled()` in a
//! `select!` would be seen only at an await point. Rows are counted as `visits` says.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::visits::Tally;

/// Searches rows `0..rows` in tasks of `per` rows each, on the current tokio runtime:
/// `row(r)` scans row `r`, records what it found and returns whether the search is
/// resolved, which cancels `token`. Returns once every task has ended.
pub(crate) async fn search<F>(
    rows: usize,
    per: usize,
    token: CancellationToken,
    count: Option<Arc<Tally>>,
    row: F,
) where
    F: Fn(usize) -> bool + Clone + Send + 'static,
{
    let per = per.max(1);
    let tasks: Vec<_> = (0..rows)
        .step_by(per)
        .map(|lo| {
            let (token, count, row) = (token.clone(), count.clone(), row.clone());
            tokio::spawn(async move {
                for r in lo..(lo + per).min(rows) {
                    if token.is_cancelled() {
                        return;
                    }
                    Tally::visit(count.as_deref());
                    if row(r) {
                        Tally::resolved(count.as_deref());
                        token.cancel();
                        return;
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a search task panicked");
    }
}

/// Rows per task: eight tasks per worker of `rt`.
pub(crate) fn per_task(rt: &tokio::runtime::Runtime, rows: usize) -> usize {
    rows.div_ceil(8 * rt.metrics().num_workers()).max(1)
}
