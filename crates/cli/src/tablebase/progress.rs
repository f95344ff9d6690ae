//! The progress bar of a long job (a build, a check), drawn from the job's progress reports.

use anywoli_engine::endgame::Stage;
use indicatif::{ProgressBar, ProgressStyle};

pub fn bar() -> ProgressBar {
    let pb = ProgressBar::new(1);
    pb.set_style(
        ProgressStyle::with_template(
            "{prefix:>10} [{elapsed_precise}] [{wide_bar}] {pos}/{len} ({eta} left)",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    pb
}

/// A progress callback drawing `pb` (waves of the retrograde stage have no known total).
pub fn progress(pb: &ProgressBar) -> impl Fn(Stage, u64, u64) + Sync + '_ {
    move |stage, done, total| {
        pb.set_prefix(stage.name());
        if total == 0 {
            pb.set_message(format!("wave {done}"));
            pb.set_length(done.max(1));
            pb.set_position(done);
        } else {
            pb.set_length(total);
            pb.set_position(done);
        }
    }
}
